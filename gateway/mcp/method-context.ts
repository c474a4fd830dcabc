// What the MCP method handlers work with: the gateway's dependencies, handed over once when the
// handler is made, and one request's own values.
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { ArtifactStore } from '../../common/artifact-store.ts';
import type { Caller } from '../shared/caller.ts';
import { TASKS_EXTENSION } from '../shared/protocol.ts';
import type { RunParts } from '../temporal/backend.ts';
import type { FleetSize } from '../temporal/fleet.ts';
import type { TaskRef } from '../temporal/task-ids.ts';
import type { Catalog, CatalogTool } from './catalog.ts';
import { taskNotFound } from './errors.ts';
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

/** One message as the gateway reads it, once, before anything acts on it. */
export interface MessageReading {
  /** The catalog tools it touches: the tool called (a companion's is the tool it serves), each named task's. */
  tools: CatalogTool[];
  /** The tool a tools/call names, as written (a quick tool, which no catalog holds, is known by it). */
  called?: string;
  /** The well-formed task ids it names, parsed. */
  tasks: TaskRef[];
  /** The task ids it polls. */
  polls: TaskRef[];
  /** The task it is about, as written (logs and spans): its first task id, even a malformed one. */
  taskId?: string;
}

/** A protocol revision: 2026-07-28 (`modern`) or 2025-11-25 (`legacy`). */
export type Era = 'modern' | 'legacy';

/** What one request's handler is handed: the values the route and the method table made of it. */
export interface MethodCall<P = Record<string, unknown>> {
  /** The params, checked by the method's schema (methods.ts). */
  params: P;
  era: Era;
  caller: Caller;
  /** Each task id the message names as the HTTP layer parsed it, once: undefined for a malformed one. */
  parsed: (taskId: string) => TaskRef | undefined;
  server: Server;
  ctx: ServerContext;
  /** Settles once the answer has left the process (a resources/read holds its budget until then). */
  answered: Promise<void>;
}

/** The task a call's `taskId` names, as parsed once: a malformed id is not found, and not parsed again. */
export function namedTask({ params, parsed }: MethodCall<{ taskId: string }>): TaskRef {
  const task = parsed(params.taskId);
  // A malformed id names no slot, so its refusal needs nothing more of it.
  if (!task) throw taskNotFound();
  return task;
}

/** Whether a request may receive a task: its client capabilities declare the Tasks extension. */
export function declaresTasksExtension(capabilities: object | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const value = extensions?.[TASKS_EXTENSION];
  return typeof value === 'object' && value !== null;
}
