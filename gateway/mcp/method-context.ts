// What the MCP method handlers work with: the gateway's dependencies, handed over once when the
// handler is made, and one request's own context. Types only.
import type { CallToolRequest, Server, ServerContext } from '@modelcontextprotocol/server';
import type { ArtifactStore } from '../../common/artifact-store.ts';
import type { Caller } from '../shared/caller.ts';
import type { RunParts } from '../temporal/backend.ts';
import type { FleetSize } from '../temporal/fleet.ts';
import type { ParsedTaskIds, TaskName } from '../temporal/task-ids.ts';
import type { Catalog } from './catalog.ts';
import type { InputRounds } from './input-rounds.ts';
import type { TaskTiming } from './poll-pacing.ts';
import type { ReadBudget } from './read-budget.ts';
import type { ToolDefinition } from './tool-definition.ts';

interface ArtifactSettings {
  store: ArtifactStore;
  /** The largest artifact resources/read answers. */
  readMaxBytes: number;
  /** What resources/read and resources/list may take on at once. */
  budget: ReadBudget;
}

export interface SubscriptionLimits {
  /** Task ids one stream may watch. */
  maxTasksPerStream: number;
  /** Task streams open at once on this gateway. */
  maxStreams: number;
  /** Task streams one principal may hold open at once, of the whole fleet (each gateway admits its share). */
  maxStreamsPerPrincipal: number;
  /** Comment frames that keep idle proxies from closing the stream. */
  keepAliveMs: number;
}

/** What the MCP methods work with: each part of the Temporal side by name, made once per gateway. */
export interface McpDeps extends RunParts {
  /** Keys the requestState of input_required answers (derived from the server secret). */
  requestStateKey: Buffer;
  catalog: Catalog;
  timing: TaskTiming;
  listen: SubscriptionLimits;
  /** The gateways sharing the per-principal bounds, as Temporal counts them (read per request). */
  fleet: FleetSize;
  /** How long an input_required answer's requestState stays valid. */
  requestStateTtlSeconds: number;
  /** Wait budgets per MCP client (lower-cased clientInfo.name); each tool's budget caps them. */
  clientWaitBudgets?: ReadonlyMap<string, number>;
  /** Where workers put large outputs, and the largest one resources/read answers. */
  artifacts: ArtifactSettings;
  onError?: (error: Error) => void;
  /** The embedding host's quick tools (host-tools.ts), served beside the catalog's. */
  hostTools?: readonly ToolDefinition[];
}

/** One tasks/* request, past its capability and params checks. */
export interface TaskRequest {
  /** The task id as written. */
  taskId: string;
  /** The same id as the HTTP layer parsed it (methods.ts), so it is not parsed again. */
  task: TaskName;
  params: Record<string, unknown>;
  ctx: ServerContext;
  caller: Caller;
  deps: McpDeps;
}

/** One tools/call request, as the per-request server hands it over. */
export interface ToolsCallRequest {
  server: Server;
  request: CallToolRequest;
  ctx: ServerContext;
  caller: Caller;
  /** The request's protocol era: only 2026-07-28 (`modern`) requests are checked for capabilities. */
  era: 'legacy' | 'modern';
  /** Multi-round-trip input (2026-07-28 requests only). */
  rounds?: InputRounds;
  /** Whether this request may receive a task (it declared the Tasks extension, or asked with `params.task`). */
  takesTasks: boolean;
  /** A 2025-11-25 request: its task is the revision's own (SEP-1686). */
  legacyTasks?: boolean;
  /** A task id of the arguments as the HTTP layer parsed it. */
  named: ParsedTaskIds;
}
