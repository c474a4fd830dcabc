// An in-memory MiningBackend: runs are whatever state the test puts them in. For testing the
// HTTP and MCP layers of the gateway without Temporal.
import type { ExecutionState, ExecutionView } from '../../gateway/execution.ts';
import type { Caller, MiningBackend, StartRequest, WaitOutcome } from '../../gateway/mining-backend.ts';
import type { InputResponse } from '../../workflows/contract.ts';

interface FakeRun {
  request: StartRequest;
  caller: Caller;
  state: ExecutionState;
  createdAt: Date;
  cancelRequested: boolean;
  inputs: Record<string, InputResponse>[];
}

export class FakeBackend implements MiningBackend {
  readonly runs = new Map<string, FakeRun>();
  /** State a new run is in when the wait budget ends. */
  nextState: ExecutionState = { status: 'running' };
  /** Whether a new run closes within the wait budget. */
  closesInBudget = false;
  ping: (timeoutMs: number) => Promise<void> = async () => {};
  private counter = 0;

  async start(request: StartRequest, caller: Caller): Promise<{ workflowId: string }> {
    const workflowId = `mine-fake-${++this.counter}`;
    this.runs.set(workflowId, {
      request,
      caller,
      state: this.nextState,
      createdAt: new Date(),
      cancelRequested: false,
      inputs: [],
    });
    return { workflowId };
  }

  async wait(workflowId: string): Promise<WaitOutcome> {
    const run = this.runs.get(workflowId);
    if (run && this.closesInBudget) return { kind: 'closed', state: run.state };
    return { kind: 'running' };
  }

  async view(workflowId: string, caller: Caller): Promise<ExecutionView | undefined> {
    const run = this.owned(workflowId, caller);
    if (!run) return undefined;
    return {
      workflowId,
      createdAt: run.createdAt,
      lastUpdatedAt: run.createdAt,
      input: run.request.input,
      state: run.state,
    };
  }

  async cancel(workflowId: string, caller: Caller): Promise<boolean> {
    const run = this.owned(workflowId, caller);
    if (!run) return false;
    run.cancelRequested = true;
    if (run.state.status === 'running') run.state = { status: 'cancelled' };
    return true;
  }

  async sendInput(
    workflowId: string,
    caller: Caller,
    responses: Record<string, InputResponse>,
  ): Promise<boolean> {
    const run = this.owned(workflowId, caller);
    if (!run) return false;
    run.inputs.push(responses);
    return true;
  }

  private owned(workflowId: string, caller: Caller): FakeRun | undefined {
    const run = this.runs.get(workflowId);
    return run && run.caller.principal === caller.principal ? run : undefined;
  }
}
