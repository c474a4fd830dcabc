// The MCP tool contract (mcp-contract.ts) for TypeScript workflow authors: construct one McpTool
// at the top of a workflow, report progress, ask a person for input, fail with a tool error.
// Workflow code only: it registers the progress query and the input signal handlers, and
// publishes the same answer to the run's memo whenever it changes (progress-publisher.ts).
import { ApplicationFailure, condition, setCurrentDetails, setHandler } from '@temporalio/workflow';
import { InputBook } from './input-book.ts';
import {
  type InputRequest,
  type InputResponse,
  inputSignal,
  progressQuery,
  TOOL_ERROR_TYPE,
  type ToolProgress,
} from './mcp-contract.ts';
import { ProgressPublisher } from './progress-publisher.ts';

export class McpTool {
  private readonly status: Omit<ToolProgress, 'inputRequests'> = {};
  private readonly inputs = new InputBook();
  private readonly publisher: ProgressPublisher;

  /** `extra` adds fields of the workflow's own to every progress answer. */
  constructor(extra?: () => Record<string, unknown>) {
    const answer = () => ({ ...extra?.(), ...this.status, inputRequests: this.inputs.pending() });
    this.publisher = new ProgressPublisher(answer);
    setHandler(progressQuery, answer);
    setHandler(inputSignal, (responses) => {
      if (this.inputs.receive(responses).length > 0) this.publisher.changed();
    });
  }

  /**
   * Updates the progress answer (published to the memo; `extra`'s fields go with it); a message
   * also shows as the run's current details in the Web UI.
   */
  report(update: Omit<ToolProgress, 'inputRequests'>): void {
    Object.assign(this.status, update);
    if (update.message) setCurrentDetails(update.message);
    this.publisher.changed();
  }

  /**
   * Asks a person (an elicitation the client shows) and waits for the answer, at most `timeoutMs`
   * when given. Resolves with the answer, or undefined when the time ran out (the request is then
   * withdrawn). Each question gets a fresh key, `<prefix>-<n>`.
   */
  async ask(prefix: string, request: InputRequest, timeoutMs?: number): Promise<InputResponse | undefined> {
    const key = this.inputs.ask(prefix, request);
    this.publisher.changed();
    const answered = () => this.inputs.answer(key) !== undefined;
    if (timeoutMs === undefined) await condition(answered);
    else if (timeoutMs > 0) await condition(answered, timeoutMs);
    const answer = this.inputs.answer(key);
    if (!answer) {
      this.inputs.supersede(key);
      this.publisher.changed();
    }
    return answer;
  }

  /**
   * Asks several questions at once under the given keys (each unused so far in this run) and waits
   * until every one is answered, at most `timeoutMs` when given. Resolves with the answers it got;
   * the unanswered ones are withdrawn.
   */
  async askAll(
    requests: Record<string, InputRequest>,
    timeoutMs?: number,
  ): Promise<Record<string, InputResponse>> {
    const keys = Object.entries(requests).map(([key, request]) => this.inputs.askAs(key, request));
    this.publisher.changed();
    const allAnswered = () => keys.every((key) => this.inputs.answer(key) !== undefined);
    if (timeoutMs === undefined) await condition(allAnswered);
    else if (timeoutMs > 0) await condition(allAnswered, timeoutMs);
    const answers: Record<string, InputResponse> = {};
    for (const key of keys) {
      const answer = this.inputs.answer(key);
      if (answer) answers[key] = answer;
      else this.inputs.supersede(key);
    }
    this.publisher.changed();
    return answers;
  }
}

/** A tool-level error: the task completes with isError and this message (not a failed run). */
export function toolError(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, TOOL_ERROR_TYPE);
}
