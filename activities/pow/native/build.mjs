// Builds the optional native miner core (miner.c) into dist/native/miner.node with the system C
// compiler and the Node headers that come with Node itself (no download, no node-gyp). Runs after
// `npm ci` / `npm install`. Never fails the install: without a compiler, headers or an x86 CPU it
// says so and the miner uses its WebAssembly core.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const source = join(here, 'miner.c');
const out = join(root, 'dist', 'native', 'miner.node');

function skip(reason) {
  console.log(`native miner core not built (${reason}): the miner uses its WebAssembly core`);
  process.exit(0);
}

if (process.env.MINER_NATIVE === '0') skip('MINER_NATIVE=0');
if (process.arch !== 'x64') skip(`no SHA-extension code for ${process.arch}`);
const includeDirs = [
  join(dirname(dirname(process.execPath)), 'include', 'node'),
  '/usr/include/node',
  '/usr/local/include/node',
];
const include = includeDirs.find((dir) => existsSync(join(dir, 'node_api.h')));
if (!include) skip('node_api.h not found next to this Node');
const cc = ['cc', 'gcc', 'clang'].find((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);
if (!cc) skip('no C compiler');

mkdirSync(dirname(out), { recursive: true });
const args = ['-O2', '-std=c11', '-shared', '-fPIC', '-Wall', `-I${include}`, source, '-o', out];
if (process.platform === 'darwin') args.push('-undefined', 'dynamic_lookup');
const run = spawnSync(cc, args, { encoding: 'utf8' });
if (run.status !== 0) skip(`${cc} failed: ${(run.stderr || run.stdout || '').trim().split('\n')[0]}`);
console.log(`native miner core built: ${out}`);
