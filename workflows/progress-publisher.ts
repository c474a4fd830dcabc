// Publishing a tool's progress where the gateway's one describe reads it: the run's memo under
// PROGRESS_MEMO, and the McpTaskStatus search attribute when the run was started with it. Each
// upsert is one history event, so it goes out on change only: the changes of one activation as
// one upsert, progress at most once per MIN_GAP_MS of workflow time (a later change waits on one
// timer), a change of status or of the input asked (a key asked or answered) at once: a reader
// must never be shown an answered key as still asked. Workflow code only.
import { patched, sleep, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import {
  PROGRESS_MEMO,
  TASK_STATUS_ATTRIBUTE,
  type TaskStatusValue,
  type ToolProgress,
} from './mcp-contract.ts';

/** Runs started before publishing existed replay without it (their histories have no upserts). */
const PUBLISH_PATCH = 'mcp-published-progress';
/** Runs that published a change of input within the gap on a timer replay that way. */
const INPUT_AT_ONCE_PATCH = 'mcp-input-published-at-once';
/** Progress is published at most this often (workflow time); a status change goes at once. */
const MIN_GAP_MS = 1_000;
/**
 * A larger answer is not published (the memo key is removed: the gateway asks the query), so a
 * big input request never meets Temporal's memo size limit and fails the workflow task.
 */
const MAX_PUBLISHED_CHARS = 32_000;

/** One search attribute update, as upsertSearchAttributes takes it. */
type SearchAttributeUpdate = Extract<Parameters<typeof upsertSearchAttributes>[0], unknown[]>[number];
// The key as @temporalio/common's defineSearchAttributeKey makes it, written out: the package's
// workflow side imports nothing but @temporalio/workflow (docs/embedding.md).
const TASK_STATUS = { name: TASK_STATUS_ATTRIBUTE, type: 'KEYWORD' } as SearchAttributeUpdate['key'];

export class ProgressPublisher {
  private readonly enabled: boolean;
  private readonly withStatus: boolean;
  private published?: string;
  /** The keys of the input requests last published. */
  private publishedKeys = '';
  private status?: TaskStatusValue;
  private lastAt = Number.NEGATIVE_INFINITY;
  /** A flush is queued (a microtask of this activation, or the timer of the gap). */
  private queued = false;

  /** `current` answers the progress as the query does. */
  constructor(private readonly current: () => ToolProgress) {
    this.enabled = patched(PUBLISH_PATCH);
    this.withStatus = this.enabled && workflowInfo().typedSearchAttributes.get(TASK_STATUS) !== undefined;
    this.status = this.withStatus ? 'working' : undefined;
  }

  /** Something in the answer changed: publish it (coalesced and rate bounded). */
  changed(): void {
    if (!this.enabled || this.queued) return;
    this.queued = true;
    // After the code that changed it has run: every change of this activation goes as one upsert.
    void Promise.resolve().then(() => this.flush());
  }

  private flush(): void {
    const answer = this.current();
    const status: TaskStatusValue =
      Object.keys(answer.inputRequests ?? {}).length > 0 ? 'input_required' : 'working';
    const statusChanged = this.withStatus && status !== this.status;
    const gap = this.lastAt + MIN_GAP_MS - Date.now();
    if (gap > 0 && !statusChanged && !this.inputChanged(answer)) {
      // Too soon after the last upsert: one timer, then whatever the answer is by then.
      sleep(gap).then(
        () => this.flush(),
        () => {
          this.queued = false; // the run is being cancelled: the next change publishes
        },
      );
      return;
    }
    this.queued = false;
    this.publish(answer, statusChanged ? status : undefined);
  }

  /** Whether the input asked differs from what was last published (checked once a change is due). */
  private inputChanged(answer: ToolProgress): boolean {
    return inputKeys(answer) !== this.publishedKeys && patched(INPUT_AT_ONCE_PATCH);
  }

  private publish(answer: ToolProgress, status: TaskStatusValue | undefined): void {
    const json = JSON.stringify(answer);
    if (json !== this.published) {
      this.published = json;
      this.publishedKeys = inputKeys(answer);
      this.lastAt = Date.now();
      upsertMemo({ [PROGRESS_MEMO]: json.length <= MAX_PUBLISHED_CHARS ? answer : undefined });
    }
    if (status) {
      this.status = status;
      const update = [{ key: TASK_STATUS, value: status }] as SearchAttributeUpdate[];
      upsertSearchAttributes(update);
    }
  }
}

function inputKeys(answer: ToolProgress): string {
  return Object.keys(answer.inputRequests ?? {}).join('\n');
}
