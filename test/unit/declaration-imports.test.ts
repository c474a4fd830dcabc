// The guard on the package's declarations (scripts/declaration-imports.ts, run by `npm run lint`
// through scripts/package-api.ts and by test/embedded-example.test.ts on the installed tarball):
// each way a .d.ts can name a package is caught when the package is not one a host installs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declarationProblems, entryDeclarations } from '../../scripts/declaration-imports.ts';

const manifest = {
  dependencies: { pino: '^10' },
  peerDependencies: { fastify: '^5', '@aws-sdk/client-s3': '^3' },
  peerDependenciesMeta: { '@aws-sdk/client-s3': { optional: true } },
  exports: { '.': { types: './dist/package/types/index.d.ts' } },
};
const ENTRIES = entryDeclarations(manifest, 'dist/package/types');

/** The problems of an entry `index.d.ts` importing `settings.d.ts`, whose text is `settings`. */
function problemsOf(settings: string, more: Record<string, string> = {}): string[] {
  const files = new Map(
    Object.entries({ 'index.d.ts': "export type { Settings } from './settings.js';\n", ...more }),
  );
  files.set('settings.d.ts', settings);
  return declarationProblems(files, ENTRIES, manifest);
}

describe('the declarations guard', () => {
  it("reads the entries' declarations from package.json exports", () => {
    assert.deepEqual(ENTRIES, ['index.d.ts']);
  });

  it('passes declarations naming dependencies, required peers and Node.js modules', () => {
    const text = [
      '/// <reference types="node" />',
      "import type { Logger } from 'pino';",
      "import type { IncomingMessage } from 'node:http';",
      'export interface Settings { app: import("fastify").FastifyInstance; logger: Logger; request: IncomingMessage; raw: import("http").ServerResponse }',
    ].join('\n');
    assert.deepEqual(problemsOf(text), []);
  });

  for (const [how, text] of [
    [
      'an import type',
      "import type { NativeConnectionOptions } from '@temporalio/worker';\nexport type Settings = NativeConnectionOptions;",
    ],
    [
      'an import() type',
      'export type Settings = import("@temporalio/worker/lib/connection").NativeConnectionOptions;',
    ],
    ['a re-export', "export { Settings } from '@temporalio/worker';"],
    ['a type reference', '/// <reference types="@temporalio/worker" />\nexport type Settings = string;'],
  ] as const)
    it(`catches a package named through ${how} that package.json does not declare`, () => {
      assert.deepEqual(problemsOf(text), [
        'settings.d.ts: names @temporalio/worker, which package.json names neither as a dependency nor as a peer',
      ]);
    });

  it('catches an optional peer in a declaration the entries reach, not in one they do not', () => {
    const s3 = "import type { S3Client } from '@aws-sdk/client-s3';\nexport type Store = S3Client;";
    assert.deepEqual(problemsOf(s3), [
      'settings.d.ts: names @aws-sdk/client-s3, an optional peer a host may not have installed',
    ]);
    assert.deepEqual(problemsOf('export type Settings = string;', { 's3-store.d.ts': s3 }), []);
  });

  it('catches an undeclared package even in a declaration no entry reaches', () => {
    assert.deepEqual(
      problemsOf('export type Settings = string;', {
        'worker.d.ts': "import type { Worker } from '@temporalio/worker';\nexport type W = Worker;",
      }),
      [
        'worker.d.ts: names @temporalio/worker, which package.json names neither as a dependency nor as a peer',
      ],
    );
  });

  it('follows relative imports, .ts and .js alike, and names one that resolves to nothing', () => {
    assert.deepEqual(
      problemsOf("export type { Env } from './common/env.ts';\nexport type { Gone } from './gone.js';", {
        'common/env.d.ts': "import type { Client } from '@temporalio/client';\nexport type Env = Client;",
      }),
      [
        'settings.d.ts: imports ./gone.js, which is not among the declarations',
        'common/env.d.ts: names @temporalio/client, which package.json names neither as a dependency nor as a peer',
      ],
    );
  });
});
