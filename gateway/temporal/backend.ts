// The Temporal side assembled once per gateway: one client with its deadline, and the parts the MCP
// layer is handed by name (start, wait, view, act on, list runs), each in a file of its own.
import { createHmac } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { RunActions } from './actions.ts';
import { type CallOptions, TemporalCalls } from './client.ts';
import type { FairnessWeights } from './fairness.ts';
import { GatewayFleet } from './fleet.ts';
import { RunListing } from './listing.ts';
import { OptionalAttributes } from './optional-attributes.ts';
import { StartRate, WaitCounts } from './principal-limits.ts';
import { RecentRuns } from './recent-runs.ts';
import { RunningTaskSlots } from './slots.ts';
import { RunStarts } from './start.ts';
import { isOwnedBy, type TaskName } from './task-ids.ts';
import { endIfStuck, type StuckRunPolicy } from './too-large.ts';
import { RunViews } from './view.ts';
import { RunWaits } from './wait.ts';

export interface BackendOptions extends CallOptions {
  /** Keys task ids' owner tags and idempotent task ids (HMAC). */
  serverSecret: Buffer;
  /** Running tasks one principal may have at once; 0 or absent: no cap. */
  maxRunningTasks?: number;
  /** How long a run stuck on a size cause is left before a view ends it (too-large.ts); absent: never. */
  stuckRunGraceMs?: number;
  /** Told each run the gateway ended (or failed to end) that way: a line for the log. */
  onStuckRun?: (run: { workflowId: string; runId: string }, message: string) => void;
  /** Starts per second one principal may make, of the whole fleet; 0 or absent: no bound. */
  maxStartsPerSecond?: number;
  /** Waits one principal may hold at once, of the whole fleet; 0 or absent: no bound. */
  maxWaitsPerPrincipal?: number;
  /** The queue the gateways poll to be counted (fleet.ts): `<task queue>-gateways`. */
  fleetTaskQueue: string;
  /** Fairness weights per principal (fairness.ts). */
  fairnessWeights?: FairnessWeights;
}

/** What the MCP layer does with runs, a part per use; each method names the parts it works with. */
export interface RunParts {
  starts: RunStarts;
  waits: RunWaits;
  views: RunViews;
  actions: RunActions;
  listing: RunListing;
  recentRuns: RecentRuns;
}

export class TemporalBackend implements RunParts {
  readonly calls: TemporalCalls;
  readonly starts: RunStarts;
  readonly waits: RunWaits;
  readonly views: RunViews;
  readonly actions: RunActions;
  readonly listing: RunListing;
  readonly recentRuns: RecentRuns;
  readonly optionalAttributes: OptionalAttributes;
  /** The running-task cap, when there is one. */
  readonly slots?: RunningTaskSlots;
  /** The gateways sharing the per-principal bounds; counting starts when the routes join (routes.ts). */
  readonly fleet: GatewayFleet;

  constructor(
    client: Client,
    private readonly options: BackendOptions,
  ) {
    this.calls = new TemporalCalls(client, options);
    const stuckRuns: StuckRunPolicy = {
      graceMs: options.stuckRunGraceMs ?? Number.POSITIVE_INFINITY,
      ...(options.onStuckRun ? { log: options.onStuckRun } : {}),
    };
    const limit = options.maxRunningTasks ?? 0;
    const slots =
      limit > 0
        ? new RunningTaskSlots(client, {
            serverSecret: options.serverSecret,
            limit,
            calls: this.calls,
            reclaim: (run) => endIfStuck(this.calls, run, stuckRuns),
          })
        : undefined;
    if (slots) this.slots = slots;
    this.fleet = new GatewayFleet(this.calls, options.fleetTaskQueue);
    this.views = new RunViews(this.calls, options.serverSecret, stuckRuns);
    this.optionalAttributes = new OptionalAttributes(this.calls);
    this.waits = new RunWaits(this.calls, new WaitCounts(options.maxWaitsPerPrincipal ?? 0, this.fleet));
    this.starts = new RunStarts({
      calls: this.calls,
      views: this.views,
      serverSecret: options.serverSecret,
      secretArgumentKey: this.derivedKey('secret-argument'),
      optionalAttributes: this.optionalAttributes,
      ...(slots ? { slots } : {}),
      rate: new StartRate(options.maxStartsPerSecond ?? 0, this.fleet),
      ...(options.fairnessWeights ? { fairnessWeights: options.fairnessWeights } : {}),
    });
    this.actions = new RunActions(this.calls, this.views);
    this.listing = new RunListing(this.calls, this.views);
    this.recentRuns = new RecentRuns(this.calls, this.views);
  }

  /**
   * A key for `purpose` derived from the server secret (HMAC-SHA-256), the same on every replica:
   * one secret, a separate key per use, so a value signed for one use is never valid for another.
   */
  derivedKey(purpose: string): Buffer {
    return createHmac('sha256', this.options.serverSecret).update(`temporal-mcp-gateway:${purpose}`).digest();
  }

  /** Whether the id is one a gateway with this secret issued to `principal` (no Temporal call). */
  issuedTo(task: TaskName, principal: string): boolean {
    return isOwnedBy(this.options.serverSecret, principal, task);
  }
}
