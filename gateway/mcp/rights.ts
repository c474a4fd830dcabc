// What a caller may do, one rule for every method of both revisions, every companion and every way
// of signing in (static tokens, OAuth, the embedding host's `authenticate`): a message needs the
// gateway's required scopes and the `scopes` of every catalog tool it touches (methods.ts reads what
// it touches) or of the quick tool it calls, and a listing leaves out the runs of tools the caller's
// scopes do not cover. A caller without scopes (a static principal not given any, a host identity
// without `scopes`, the local principal) holds every scope. No Temporal call: a task id's prefix
// names its tool, and the owner tag covers the prefix.
import type { Catalog } from './catalog.ts';
import type { MessageReading } from './method-context.ts';

export class Rights {
  constructor(
    private readonly catalog: Catalog,
    /** Scopes every request needs (MCP_OAUTH_REQUIRED_SCOPES). */
    private readonly requiredScopes: readonly string[],
    /** The scopes a call of each quick tool needs, by tool name (host-tools.ts). */
    private readonly quickToolScopes: ReadonlyMap<string, readonly string[]> = new Map(),
  ) {}

  /**
   * Every scope the message needs, when the caller holding `held` lacks one of them (a refusal
   * names them all, so a client steps up once); undefined when it may go ahead.
   */
  missingScopes(reading: MessageReading, held: readonly string[] | undefined): string[] | undefined {
    if (held === undefined) return undefined;
    const needed = new Set(this.requiredScopes);
    for (const tool of reading.tools) for (const scope of tool.scopes ?? []) needed.add(scope);
    const quick = reading.called === undefined ? undefined : this.quickToolScopes.get(reading.called);
    for (const scope of quick ?? []) needed.add(scope);
    for (const scope of needed) if (!held.includes(scope)) return [...needed];
    return undefined;
  }

  /** Every scope the gateway knows of, required ones first (RFC 9728 `scopes_supported`). */
  supported(): string[] {
    const ofTools = this.catalog.tools.flatMap((tool) => tool.scopes ?? []);
    return [...new Set([...this.requiredScopes, ...ofTools, ...[...this.quickToolScopes.values()].flat()])];
  }
}

/** Whether a caller holding `held` covers the tool of task `taskId` (a listing keeps only those). */
export function coversTask(catalog: Catalog, taskId: string, held: readonly string[] | undefined): boolean {
  const scopes = catalog.toolOfTask(taskId)?.scopes ?? [];
  return held === undefined || scopes.every((scope) => held.includes(scope));
}
