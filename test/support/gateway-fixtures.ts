// Sample execution views for the gateway's pure mapping tests.

import { miningTool } from '../../catalog/mining/entry.ts';
import { catalogTool } from '../../gateway/mcp/catalog.ts';
import type { ExecutionState, ExecutionView } from '../../gateway/temporal/run-state.ts';
import type { InputRequest } from '../../workflows/mcp-contract.ts';
import { GENESIS_HASH } from '../../workflows/mining/genesis.ts';
import type { ChainResult } from '../../workflows/mining/types.ts';

export const CREATED = new Date('2026-11-30T10:00:00.000Z');
export const UPDATED = new Date('2026-11-30T10:00:05.250Z');

export const CHAIN: ChainResult = {
  difficulty: 8,
  data: 'hello',
  blocks: [
    {
      index: 0,
      nonce: 149,
      hash: `00${'a'.repeat(62)}`,
      previousHash: GENESIS_HASH,
      hashesTried: 150,
      ms: 1,
      attempt: 1,
      startNonce: 0,
    },
  ],
  finalHash: `00${'a'.repeat(62)}`,
  totalHashesTried: 150,
  totalMs: 1,
};

export const APPROVAL_REQUEST: InputRequest = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Publish the chain?',
    requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
  },
};

export function view(state: ExecutionState, workflowId = 'mine-test'): ExecutionView {
  return {
    taskId: workflowId,
    run: { workflowId },
    tool: 'start_mining',
    createdAt: CREATED,
    lastUpdatedAt: UPDATED,
    arguments: { difficulty: 22, blocks: 3, data: 'hello' },
    state,
  };
}

export const RUNNING: ExecutionState = {
  status: 'running',
  progress: {
    message: 'Mining block 2 of 3 at difficulty 22',
    progress: 1,
    total: 3,
    inputRequests: {},
    mining: { phase: 'mining', blocksDone: 1, blocksTotal: 3, hashesTried: 4_000_000, currentBlock: 1 },
  },
  heartbeat: { nonce: 99 },
};

export const NO_WORKER: ExecutionState = {
  status: 'running',
  note: 'The run is in progress, but no worker is polling task queue "q" right now.',
};

export const WAITING_FOR_INPUT: ExecutionState = {
  status: 'running',
  progress: {
    progress: 3,
    total: 3,
    inputRequests: { 'approve-publish-1': APPROVAL_REQUEST },
    mining: {
      phase: 'awaiting_input',
      blocksDone: 3,
      blocksTotal: 3,
      hashesTried: 9_000_000,
      currentBlock: null,
    },
  },
};

export const COMPLETED: ExecutionState = { status: 'completed', result: CHAIN };

export const TOOL_ERROR: ExecutionState = {
  status: 'failed',
  toolError: true,
  reason: 'McpToolError',
  message: 'difficulty must be an integer from 1 to 40',
};

export const BROKEN: ExecutionState = {
  status: 'failed',
  toolError: false,
  reason: 'terminated',
  message: 'was terminated: operator',
};

export const CANCELLED: ExecutionState = { status: 'cancelled' };

/** The built-in mining tool, as the mappings see it. */
export const MINING = miningTool({ taskQueue: 'q', waitBudgetMs: 1_000 });

/** A catalog tool the gateway knows nothing about: the generic presentation. */
export const REPORT = catalogTool(
  {
    name: 'start_report',
    description: 'Builds a report.',
    workflow: 'buildReport',
    inputSchema: { type: 'object', properties: { year: { type: 'integer' } } },
    progressQuery: 'mcp.progress',
    inputSignal: 'mcp.input',
  },
  { taskQueue: 'reports', waitBudgetMs: 1_000 },
);
