// An optional peer of the package, asked for by a setting and not installed: the error names the
// package and the setting, under the loader the repository runs (tsx) as under plain Node.js
// (test/embedded-example.test.ts sees the S3 one from the installed tarball). Other errors pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importOptionalPeer } from '../../common/optional-peer.ts';

/** Not a package anywhere: the import fails as a missing optional peer does. */
const MISSING = '@temporal-mcp-gateway-test/not-installed';

test('a missing optional peer: an error naming it, its feature and the install command', async () => {
  await assert.rejects(
    importOptionalPeer(MISSING, 'MCP_ARTIFACT_STORE=s3', () => import(MISSING)),
    {
      message: `MCP_ARTIFACT_STORE=s3 needs the package ${MISSING}, which is not installed: npm install ${MISSING}`,
    },
  );
});

test('a subpath of a missing optional peer names the package', async () => {
  await assert.rejects(
    importOptionalPeer(MISSING, 'Tracing', () => import(`${MISSING}/lib/client/index.js`)),
    { message: `Tracing needs the package ${MISSING}, which is not installed: npm install ${MISSING}` },
  );
});

test('an installed package loads; any other failure is not reported as a missing package', async () => {
  const yaml = await importOptionalPeer('yaml', 'YAML catalogs', () => import('yaml'));
  assert.equal(typeof yaml.parse, 'function');
  const broken = new Error('the module threw while loading');
  await assert.rejects(
    importOptionalPeer('yaml', 'YAML catalogs', () => Promise.reject(broken)),
    (err) => err === broken,
  );
});
