// A newcomer on an unsupported Node.js (the machine's own /usr/bin/node, Node.js 20): `npm start`,
// `npm test`, `npm run gateway` and the compiled gateway run as a user runs them, that Node.js (and
// its npm) first on PATH. Each prints one line, what package.json `engines` needs, which Node.js
// runs and the README's way to get one, and exits 1 before anything else starts: nothing more
// than npm's own header is printed, no type-check, no Temporal, no gateway.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { satisfies } from '../common/node-version.ts';
import { buildGateway } from '../scripts/build-gateway.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OLD_NODE = process.env.OLD_NODE_PATH || '/usr/bin/node';
const engines = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;

/** The old Node.js's version, or why this file cannot prove anything here. */
const OLD_VERSION = existsSync(OLD_NODE)
  ? execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
  : undefined;
const SKIP =
  OLD_VERSION === undefined
    ? `no ${OLD_NODE} here (OLD_NODE_PATH names another)`
    : satisfies(OLD_VERSION, engines) && `${OLD_NODE} is Node.js ${OLD_VERSION}, one engines allows`;

/** The environment a user's shell gives: the old Node.js's folder first on PATH, no npm run state. */
function userEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, PATH: `${join(OLD_NODE, '..')}:${process.env.PATH}` };
}

/** What `command` prints (stdout and stderr, npm's `> script` header and blank lines aside) and its exit code. */
async function attempt(command: string, args: string[]): Promise<{ code: number; lines: string[] }> {
  const { code, output } = await run(command, args, { cwd: ROOT, env: userEnv(), timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: `${stdout}\n${stderr}` }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: Number(err.code),
      output: `${err.stdout}\n${err.stderr}`,
    }),
  );
  return { code, lines: output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('> ')) };
}

describe(`on ${OLD_NODE}, Node.js ${OLD_VERSION}`, { skip: SKIP }, () => {
  let line: RegExp;

  before(() => {
    const version = OLD_VERSION as string;
    const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    line = new RegExp(
      `^temporal-mcp-gateway needs Node.js ${escaped(engines)} \\(package.json engines\\), and this is ` +
        `Node.js ${escaped(version)} \\(${escaped(OLD_NODE)}\\): see README.md, Run it: ` +
        `${escaped('export PATH="$(bash scripts/install-node.sh):$PATH"')}`,
    );
  });

  for (const script of ['start', 'test', 'gateway'])
    test(`npm run ${script}: the one line, exit 1, nothing else`, async () => {
      const { code, lines } = await attempt(join(OLD_NODE, '../npm'), ['run', script]);
      assert.equal(code, 1, lines.join('\n'));
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0] as string, line);
    });

  test('the compiled gateway (node dist/gateway.mjs): the one line, exit 1, nothing else', async () => {
    const bundle = await buildGateway();
    const { code, lines } = await attempt(OLD_NODE, [bundle]);
    assert.equal(code, 1, lines.join('\n'));
    assert.deepEqual(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] as string, line);
  });
});
