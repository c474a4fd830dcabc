// The built-in catalog: start_mining, the first durable tool. An entry like any in a catalog file
// (the gateway adds the companions and the texts on following a long call), plus mining's own
// presentation of its progress and outcome.
import { MINE_CHAIN_WORKFLOW } from '../../../workflows/contract.ts';
import { INPUT_SIGNAL, PROGRESS_QUERY } from '../../../workflows/mcp-contract.ts';
import { type CatalogDefaults, type CatalogTool, catalogTool } from '../catalog.ts';
import type { ApprovalPolicy } from './approval-policy.ts';
import { startMiningInputSchema } from './arguments.ts';
import { miningPresentation } from './presentation.ts';
import { chainResultSchema } from './result-schema.ts';

/** Mining task ids start with `mine-`. */
export const MINING_ID_PREFIX = 'mine';

export function miningTool(defaults: CatalogDefaults, approval?: ApprovalPolicy): CatalogTool {
  return catalogTool(
    {
      name: 'start_mining',
      title: 'Start mining a proof-of-work chain',
      description:
        'Start mining a proof-of-work chain of `blocks` blocks at `difficulty` leading zero bits. ' +
        "With `require_approval` (or for very large jobs) the run pauses after mining for a person's approval " +
        'before it publishes the chain.',
      workflow: MINE_CHAIN_WORKFLOW,
      inputSchema: startMiningInputSchema(),
      outputSchema: chainResultSchema(),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      idempotencyKeyArgument: 'idempotency_key',
      progressQuery: PROGRESS_QUERY,
      inputSignal: INPUT_SIGNAL,
      companions: { result: 'get_mining_result', cancel: 'cancel_mining', respond: 'respond_to_mining' },
      idPrefix: MINING_ID_PREFIX,
      presentation: miningPresentation(approval),
    },
    defaults,
  );
}
