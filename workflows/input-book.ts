// The input requests a task has asked for and the answers it took. Keys are unique for the
// task's lifetime: an answered or superseded key never comes back, and answers to keys that are
// unknown, answered or superseded are ignored. Pure: used inside the workflow, tested alone.
import type { InputRequest, InputResponse } from './mcp-contract.ts';

export class InputBook {
  private issued = 0;
  private readonly outstanding = new Map<string, InputRequest>();
  private readonly answers = new Map<string, InputResponse>();

  /** Asks a new question; returns its key, e.g. `approve-publish-1`. */
  ask(prefix: string, request: InputRequest): string {
    const key = `${prefix}-${++this.issued}`;
    this.outstanding.set(key, request);
    return key;
  }

  /** Asks under a key of the caller's choosing; a key already used in this task is refused. */
  askAs(key: string, request: InputRequest): string {
    if (this.outstanding.has(key) || this.answers.has(key))
      throw new Error(`input key ${key} was used before`);
    this.outstanding.set(key, request);
    return key;
  }

  /** Withdraws an outstanding question without an answer (it is replaced by a new one). */
  supersede(key: string): void {
    this.outstanding.delete(key);
  }

  /** Takes the answers to outstanding keys; returns the keys it took, ignoring the rest. */
  receive(responses: Record<string, InputResponse>): string[] {
    const taken: string[] = [];
    for (const [key, response] of Object.entries(responses)) {
      if (!this.outstanding.has(key) || !isInputResponse(response)) continue;
      this.outstanding.delete(key);
      this.answers.set(key, response);
      taken.push(key);
    }
    return taken;
  }

  answer(key: string): InputResponse | undefined {
    return this.answers.get(key);
  }

  /** Every outstanding request, keyed: what a poll shows. */
  pending(): Record<string, InputRequest> {
    return Object.fromEntries(this.outstanding);
  }
}

// An elicitation's answer is { action, content? }; a sampling or roots answer is any JSON object.
function isInputResponse(value: unknown): value is InputResponse {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { action, content } = value as Record<string, unknown>;
  if (action === undefined) return Object.keys(value).length > 0;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return false;
  return (
    content === undefined || (typeof content === 'object' && content !== null && !Array.isArray(content))
  );
}
