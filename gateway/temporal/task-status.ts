// Whether runs can carry McpTaskStatus (a run waiting for a person is filterable in the Web UI): only
// where the namespace has it registered, since a start or upsert naming an unknown search attribute
// is refused. Asked of Temporal once per gateway; a failed ask is asked again on the next start.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { TASK_STATUS_ATTRIBUTE } from '../../workflows/mcp-contract.ts';
import type { TemporalCalls } from './client.ts';

export const MCP_TASK_STATUS = defineSearchAttributeKey(TASK_STATUS_ATTRIBUTE, SearchAttributeType.KEYWORD);

export class TaskStatusAttribute {
  private answer?: Promise<boolean | undefined>;
  /** Temporal's answer once it came: a start reads it without a call. */
  known?: boolean;

  constructor(private readonly calls: TemporalCalls) {}

  /** Whether McpTaskStatus is registered; false (for now) when Temporal cannot say. */
  async registered(): Promise<boolean> {
    return (await this.look()) === true;
  }

  /** Temporal's answer, or undefined when it could not be asked (asked again next time). */
  look(): Promise<boolean | undefined> {
    this.answer ??= this.ask().catch(() => {
      this.answer = undefined;
      return undefined;
    });
    return this.answer;
  }

  private async ask(): Promise<boolean> {
    const { namespace } = this.calls.options;
    const listed = await this.calls.call(() =>
      this.calls.client.connection.operatorService.listSearchAttributes({ namespace }),
    );
    this.known = Object.hasOwn(listed.customAttributes ?? {}, TASK_STATUS_ATTRIBUTE);
    return this.known;
  }
}

/** What the gateway says once at start when the attribute is missing. */
export function missingTaskStatusMessage(namespace: string): string {
  return (
    `the search attribute ${TASK_STATUS_ATTRIBUTE} is not registered in namespace "${namespace}": runs work as ` +
    'before, but the Web UI cannot filter runs waiting for a person. Register it with: temporal operator ' +
    `search-attribute create --namespace ${namespace} --name ${TASK_STATUS_ATTRIBUTE} --type Keyword`
  );
}
