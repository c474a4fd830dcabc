// Part 2: how soon after a run closes its inline answer reaches the client. Short chains started
// through start_mining with a wait budget far longer than the work: for each, the time the full
// response arrived minus the run's close time (describe().closeTime), on the same machine's clock.
import type { Client } from '@temporalio/client';
import { structured } from '../test/support/mcp-clients.ts';
import { rpcResult } from '../test/support/mcp-http.ts';
import { type Distribution, distribution } from './stats.ts';

/** Chains of known short length: a few thousand to a few hundred thousand hashes in all. */
const SHORT_CHAINS = [
  { difficulty: 8, blocks: 1 },
  { difficulty: 12, blocks: 2 },
  { difficulty: 16, blocks: 1 },
  { difficulty: 16, blocks: 3 },
];

export interface CompletionNoticeResult {
  /** Response arrival − close time, ms. */
  notice: Distribution;
  /** Whole tools/call round trip, ms. */
  roundTrip: Distribution;
}

export async function measureCompletionNotice(options: {
  url: URL;
  client: Client;
  runs: number;
  warmup: number;
}): Promise<CompletionNoticeResult> {
  const notice: number[] = [];
  const roundTrip: number[] = [];
  for (let i = 0; i < options.warmup + options.runs; i++) {
    const chain = SHORT_CHAINS[i % SHORT_CHAINS.length] as (typeof SHORT_CHAINS)[number];
    const sent = performance.now();
    const answer = await rpcResult(options.url, 'tools/call', {
      name: 'start_mining',
      arguments: { ...chain, data: `notice-${i}` },
    });
    const arrivedAt = Date.now();
    const took = performance.now() - sent;
    const json = structured(answer);
    if (json.status !== 'completed')
      throw new Error(`expected an inline result, got ${JSON.stringify(json)}`);
    const description = await options.client.workflow.getHandle(String(json.workflow_id)).describe();
    if (!description.closeTime) throw new Error(`run ${json.workflow_id} has no close time`);
    if (i < options.warmup) continue;
    notice.push(arrivedAt - description.closeTime.getTime());
    roundTrip.push(took);
  }
  return { notice: distribution(notice), roundTrip: distribution(roundTrip) };
}
