// Search attributes a run carries only where the namespace has them registered, since a start naming
// an unknown one is refused: McpTaskId (an operator finds a run by the task id a user quotes) on every
// run, McpTaskStatus (a run waiting for a person, filterable in the Web UI) on runs that publish their
// progress. Asked of Temporal once per gateway; a failed ask is asked again on the next start.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { TASK_STATUS_ATTRIBUTE } from '../../workflows/mcp-contract.ts';
import type { TemporalCalls } from './client.ts';

export const MCP_TASK_STATUS = defineSearchAttributeKey(TASK_STATUS_ATTRIBUTE, SearchAttributeType.KEYWORD);
export const MCP_TASK_ID = defineSearchAttributeKey('McpTaskId', SearchAttributeType.KEYWORD);

const OPTIONAL = [MCP_TASK_ID.name, MCP_TASK_STATUS.name];

/** What each attribute is for, in the line the gateway logs when it is missing. */
const MISSING_MEANS: Record<string, string> = {
  [MCP_TASK_ID.name]: 'operators cannot find a run by the task id a user quotes',
  [MCP_TASK_STATUS.name]: 'the Web UI cannot filter runs waiting for a person',
};

export class OptionalAttributes {
  private answer?: Promise<ReadonlySet<string> | undefined>;

  constructor(private readonly calls: TemporalCalls) {}

  /** The optional attributes the namespace has; none (for now) when Temporal cannot say. */
  async registered(): Promise<ReadonlySet<string>> {
    return (await this.look()) ?? new Set();
  }

  /** Temporal's answer, or undefined when it could not be asked (asked again next time). */
  look(): Promise<ReadonlySet<string> | undefined> {
    this.answer ??= this.ask().catch(() => {
      this.answer = undefined;
      return undefined;
    });
    return this.answer;
  }

  private async ask(): Promise<ReadonlySet<string>> {
    const { namespace } = this.calls.options;
    const listed = await this.calls.call(() =>
      this.calls.client.connection.operatorService.listSearchAttributes({ namespace }),
    );
    return new Set(OPTIONAL.filter((name) => Object.hasOwn(listed.customAttributes ?? {}, name)));
  }
}

/** What the gateway says once at start for each optional attribute the namespace lacks. */
export function missingAttributeMessages(registered: ReadonlySet<string>, namespace: string): string[] {
  return OPTIONAL.filter((name) => !registered.has(name)).map(
    (name) =>
      `the search attribute ${name} is not registered in namespace "${namespace}": runs work as before, but ` +
      `${MISSING_MEANS[name]}. Register it with: temporal operator search-attribute create --namespace ` +
      `${namespace} --name ${name} --type Keyword`,
  );
}
