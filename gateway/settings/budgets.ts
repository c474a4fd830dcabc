// How long a tools/call waits for its run before answering with a handle: MCP_WAIT_BUDGET_MS, and
// per MCP client MCP_CLIENT_WAIT_BUDGETS; with the warning for a budget clients commonly outwait.
import * as z from 'zod/v4';
import { integer, nameValueList, parseSettings, setting } from '../../common/settings.ts';
import type { CatalogTool } from '../mcp/catalog.ts';
import { DEFAULTS } from './defaults.ts';

export interface BudgetSettings {
  /** Longest a tools/call waits for the workflow before answering with a handle. */
  waitBudgetMs: number;
  /** Wait budgets per MCP client (lower-cased clientInfo.name); each tool's budget caps them. */
  clientWaitBudgets: Map<string, number>;
}

const MAX_BUDGET_MS = 10 * 60_000;

/**
 * MCP_CLIENT_WAIT_BUDGETS: wait budgets per MCP client, matched on the request's `clientInfo.name`
 * (case-insensitive): `Claude Desktop=200000;mcp-inspector=45000`. A tool's own budget caps them.
 */
function clientWaitBudgets(raw: string | undefined): Map<string, number> {
  // Names match case-insensitively: lower-cased before the check for one listed twice.
  return nameValueList(raw?.toLowerCase(), {
    name: 'MCP_CLIENT_WAIT_BUDGETS',
    separator: ';',
    shape: `client-name=milliseconds (0 to ${MAX_BUDGET_MS}), entries separated by ";"`,
    value: (value) => (/^\d+$/.test(value) && Number(value) <= MAX_BUDGET_MS ? Number(value) : undefined),
  });
}

const budgetsSchema = z
  .object({
    MCP_WAIT_BUDGET_MS: integer('MCP_WAIT_BUDGET_MS', DEFAULTS.waitBudgetMs, 0, MAX_BUDGET_MS),
    MCP_CLIENT_WAIT_BUDGETS: setting('MCP_CLIENT_WAIT_BUDGETS', clientWaitBudgets),
  })
  .transform(
    (env): BudgetSettings => ({
      waitBudgetMs: env.MCP_WAIT_BUDGET_MS,
      clientWaitBudgets: env.MCP_CLIENT_WAIT_BUDGETS,
    }),
  );

export function budgetsFromEnv(env: NodeJS.ProcessEnv): BudgetSettings {
  return parseSettings(budgetsSchema, env);
}

export function clientWaitBudgetsFromEnv(env: NodeJS.ProcessEnv): Map<string, number> {
  return budgetsFromEnv(env).clientWaitBudgets;
}

/** The timeout many MCP clients give a tool call (the TypeScript SDK's default); proxies often less. */
const COMMON_CLIENT_TIMEOUT_MS = 60_000;

/**
 * One line for every wait budget at or above the common client timeout: a client that gives up
 * first reports a failure while the run goes on, and its retry starts the work again.
 */
export function budgetWarnings(config: {
  waitBudgetMs: number;
  tools: readonly Pick<CatalogTool, 'name' | 'waitBudgetMs'>[];
  clientWaitBudgets?: ReadonlyMap<string, number>;
}): string[] {
  const trap = (what: string, ms: number) =>
    `${what} is ${ms} ms, at or above ${COMMON_CLIENT_TIMEOUT_MS} ms: clients that time out a tool call at ` +
    `${COMMON_CLIENT_TIMEOUT_MS / 1000} s (the MCP TypeScript SDK's default; proxies often 30-60 s) give up before ` +
    'the answer, report a failure while the run goes on, and may start it again; lower it, or give those ' +
    'clients a budget of their own (MCP_CLIENT_WAIT_BUDGETS)';
  const lines: string[] = [];
  if (config.waitBudgetMs >= COMMON_CLIENT_TIMEOUT_MS)
    lines.push(trap('MCP_WAIT_BUDGET_MS', config.waitBudgetMs));
  for (const tool of config.tools) {
    if (tool.waitBudgetMs >= COMMON_CLIENT_TIMEOUT_MS && tool.waitBudgetMs !== config.waitBudgetMs)
      lines.push(trap(`the wait budget of ${tool.name}`, tool.waitBudgetMs));
  }
  for (const [name, ms] of config.clientWaitBudgets ?? []) {
    if (ms >= COMMON_CLIENT_TIMEOUT_MS) lines.push(trap(`the wait budget of client "${name}"`, ms));
  }
  return lines;
}
