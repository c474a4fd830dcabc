// The miner benchmark (bench/miner.ts, part 5) as a step of the bench run, when it exists: run as
// its own process after everything else has stopped, its Markdown output kept for the report.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MINER = fileURLToPath(new URL('./miner.ts', import.meta.url));

export async function runMinerStep(timeoutMs: number): Promise<{ output: string } | { unavailable: string }> {
  if (!existsSync(MINER)) return { unavailable: 'bench/miner.ts does not exist' };
  const child = spawn(process.execPath, ['--import', 'tsx', MINER], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk);
  });
  const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) return { unavailable: `bench/miner.ts exited with ${code}; its output:\n\n${output}` };
  return { output };
}
