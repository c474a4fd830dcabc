// Imported first by the entries (`npm start`, the gateway, its compiled bundle) and run first by
// `npm test` and `npm run gateway`: on a Node.js package.json `engines` does not allow, one line
// saying which is needed and how to get it, and exit 1, before anything else starts.
import { unsupportedNode } from './node-version.ts';

const problem = unsupportedNode(process.versions.node, process.execPath);
if (problem) {
  console.error(problem);
  process.exit(1);
}
