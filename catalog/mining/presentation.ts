// How mining runs read (the hooks of the start_mining catalog entry, read by the gateway): the
// mining details the workflow adds to its progress answer (blocks, hashes) plus the hashes of the
// block in flight from its heartbeat, the Web UI summary, and the publication outcome of an
// approved (or declined) chain. Pure.
import {
  failureMessage,
  hasInputRequests,
  type Presentation,
  type RunningState,
  type ToolHooks,
} from '../../gateway/hooks.ts';
import type { ChainResult, MineBlockHeartbeat, MiningProgress } from '../../workflows/mining/types.ts';

/** The mining details of a progress answer, with the last nonce the block in flight heartbeated. */
interface LiveProgress extends MiningProgress {
  currentBlockNonce?: number;
}

function liveProgress(state: RunningState): LiveProgress | undefined {
  const mining = state.progress?.mining as MiningProgress | undefined;
  if (!mining || typeof mining !== 'object') return undefined;
  const nonce = (state.heartbeat as Partial<MineBlockHeartbeat> | undefined)?.nonce;
  const inFlight = typeof nonce === 'number' && mining.currentBlock !== null;
  return { ...mining, ...(inFlight ? { currentBlockNonce: nonce } : {}) };
}

/** Hashes tried so far: finished blocks plus the block in flight (from its last heartbeat). */
function hashesSoFar(progress: LiveProgress): number {
  return (
    progress.hashesTried + (progress.currentBlockNonce === undefined ? 0 : progress.currentBlockNonce + 1)
  );
}

function progressJson(progress: LiveProgress) {
  return {
    phase: progress.phase,
    blocks_done: progress.blocksDone,
    blocks_total: progress.blocksTotal,
    hashes_tried: hashesSoFar(progress),
    current_block: progress.currentBlock,
    ...(progress.currentBlockNonce === undefined ? {} : { current_block_nonce: progress.currentBlockNonce }),
  };
}

const count = new Intl.NumberFormat('en-US');

/**
 * The mining presentation; `summary` and `workflowInput` come from the entry (entry.ts), which knows
 * the approval policy.
 */
export function miningPresentation(): ToolHooks & Pick<Presentation, 'statusMessage' | 'progressReport'> {
  const atDifficulty = (args: Record<string, unknown>) =>
    typeof args.difficulty === 'number' ? ` at difficulty ${args.difficulty}` : '';
  return {
    noun: 'mining run',
    progressJson(state) {
      const live = liveProgress(state);
      return live ? progressJson(live) : null;
    },
    working: () => 'Still mining.',
    statusMessage(view) {
      const state = view.state;
      const difficulty = atDifficulty(view.arguments);
      switch (state.status) {
        case 'running': {
          const p = liveProgress(state);
          if (!p) return state.note ?? `Mining ${view.arguments.blocks} block(s)${difficulty}`;
          if (hasInputRequests(state)) return 'Waiting for a person to answer the input requests';
          if (p.phase === 'publishing') return 'Publishing the mined chain';
          const block =
            p.currentBlock === null
              ? ''
              : `Mining block ${p.currentBlock + 1} of ${p.blocksTotal}${difficulty}: `;
          return `${block}${p.blocksDone} of ${p.blocksTotal} blocks done, about ${count.format(hashesSoFar(p))} hashes tried`;
        }
        case 'completed': {
          const result = state.result as ChainResult;
          const mined = `Mined ${result.blocks.length} blocks${difficulty}; final hash ${result.finalHash}`;
          const publication = publicationOutcome(result);
          return publication ? `${mined}. ${publication.message}` : mined;
        }
        case 'failed':
          return state.toolError ? `Mining refused: ${state.message}` : failureMessage(state, 'mining run');
        case 'cancelled':
          return 'The mining run was cancelled';
      }
    },
    outcome: (result) => publicationOutcome(result as ChainResult),
    progressReport(view) {
      const live = view.state.status === 'running' ? liveProgress(view.state) : undefined;
      const message = this.statusMessage(view);
      const blocks = typeof view.arguments.blocks === 'number' ? view.arguments.blocks : 1;
      const difficulty = typeof view.arguments.difficulty === 'number' ? view.arguments.difficulty : 0;
      // Hashes tried against the hashes the chain is expected to take: a count that moves every
      // second even at a difficulty where a whole block takes hours. Luck can need more than
      // expected: the total then follows the count, so progress never passes it.
      const expected = blocks * 2 ** difficulty;
      const tried = live ? hashesSoFar(live) : 0;
      return { progress: tried, total: Math.max(expected, tried), ...(message ? { message } : {}) };
    },
  };
}

// What a finished run says about publishing its chain, for people and models. A declined or
// timed-out approval is the tool's answer, not a broken run: the task is `completed` with
// isError, the mined chain still in the result, and a message saying why nothing was published.
interface PublicationOutcome {
  isError: boolean;
  message: string;
}

function publicationOutcome(result: ChainResult): PublicationOutcome | undefined {
  const publication = result.publication;
  if (!publication) return undefined;
  const note = 'note' in publication && publication.note ? ` Their note: "${publication.note}".` : '';
  switch (publication.status) {
    case 'published':
      return { isError: false, message: `Approved and published to the ledger (${publication.ledgerPath}).` };
    case 'declined':
      return {
        isError: true,
        message: `The person declined publishing the chain (${publication.action}); it was mined but not published.${note}`,
      };
    case 'approval_timed_out':
      return {
        isError: true,
        message: `The approval timed out: nobody answered within ${Math.round(publication.waitedMs / 1000)} s, so the chain was mined but not published.`,
      };
  }
}
