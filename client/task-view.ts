// One poll's answer, the same whichever flow produced it (Tasks or start/poll).
import type { InputRequest, InputResponse } from '../workflows/mcp-contract.ts';

export type ViewStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled' | 'not_found';

export interface TaskView {
  status: ViewStatus;
  message?: string;
  progress?: { blocksDone?: number; blocksTotal?: number; hashesTried?: number };
  /** Progress as the server notifies it during a call (notifications/progress). */
  fraction?: { progress: number; total?: number };
  inputRequests?: Record<string, InputRequest>;
  /** The tool result when completed (a CallToolResult). */
  result?: Record<string, unknown>;
  /** Why it failed, when it did. */
  error?: string;
  /** How long the server asks to wait before the next poll. */
  pollMs?: number;
}

/** The three things a client does to a running task, in either flow. */
export interface TaskPort {
  readonly taskId: string;
  /** A task of the Tasks extension, whose status a server may push. */
  readonly pushable?: boolean;
  get(): Promise<TaskView>;
  answer(responses: Record<string, InputResponse>): Promise<void>;
  cancel(): Promise<void>;
}
