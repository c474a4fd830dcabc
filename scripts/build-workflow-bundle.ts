// Bundles the workflow code once (dist/workflow-bundle.js) so workers start without webpack.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { DEFAULT_BUNDLE_PATH, WORKFLOWS_PATH } from '../worker/options.ts';

const { code } = await bundleWorkflowCode({
  workflowsPath: WORKFLOWS_PATH,
  logger: new DefaultLogger('WARN'),
});
mkdirSync(dirname(DEFAULT_BUNDLE_PATH), { recursive: true });
writeFileSync(DEFAULT_BUNDLE_PATH, code);
console.log(`workflow bundle: ${DEFAULT_BUNDLE_PATH} (${(code.length / 1024).toFixed(0)} KiB)`);
