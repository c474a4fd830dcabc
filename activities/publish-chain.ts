// The publishChain activity: writes an approved chain to the ledger folder, one file per task (per
// run: under the gateway's running-task cap a workflow id is a slot's, run after run). Atomic
// (write a temporary file, then rename) and idempotent (same run, same bytes: no rewrite).
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Context } from '@temporalio/activity';
import type { ChainResult } from '../workflows/mining/types.ts';

function ledgerDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.MCP_DATA_DIR || '.data', 'ledger');
}

interface PublishRequest {
  chain: Omit<ChainResult, 'publication'>;
  approvedNote?: string;
}

export async function publishChain({ chain, approvedNote }: PublishRequest): Promise<{ ledgerPath: string }> {
  const { info } = Context.current();
  const workflowId = info.workflowExecution?.workflowId ?? info.activityId;
  const runId = info.workflowExecution?.runId ?? '';
  const dir = ledgerDir();
  await mkdir(dir, { recursive: true });
  // Workflow and run ids are URL-safe; the guard keeps any other id inside the folder.
  const name = `${workflowId}.${runId}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const ledgerPath = join(dir, `${name}.json`);
  const entry = `${JSON.stringify({ workflowId, runId, approvedNote, chain }, null, 2)}\n`;
  const existing = await readFile(ledgerPath, 'utf8').catch(() => undefined);
  if (existing === entry) return { ledgerPath };
  const tmp = `${ledgerPath}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, entry, { flag: 'wx' });
  await rename(tmp, ledgerPath);
  return { ledgerPath };
}
