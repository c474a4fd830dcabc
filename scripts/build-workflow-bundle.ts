// Bundles the workflow code so workers start without webpack: into dist/workflow-bundle.js, or the
// file named on the command line (`npm start` bundles into its data folder at every start, so the
// worker always runs the workflows as they are in the working tree, never a stale bundle).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import {
  DEFAULT_BUNDLE_PATH,
  TRACING_INTERCEPTORS_PATH,
  WORKFLOW_PACKAGE_BUNDLER,
  WORKFLOWS_PATH,
} from '../worker/options.ts';

const out = process.argv[2] ?? DEFAULT_BUNDLE_PATH;
const { code } = await bundleWorkflowCode({
  workflowsPath: WORKFLOWS_PATH,
  workflowInterceptorModules: [TRACING_INTERCEPTORS_PATH],
  ...WORKFLOW_PACKAGE_BUNDLER,
  logger: new DefaultLogger('WARN'),
});
mkdirSync(dirname(out), { recursive: true });
// Write then rename: a worker never reads a half-written bundle.
writeFileSync(`${out}.tmp`, code);
renameSync(`${out}.tmp`, out);
console.log(`workflow bundle: ${out} (${(code.length / 1024).toFixed(0)} KiB)`);
