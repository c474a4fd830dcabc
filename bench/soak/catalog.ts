// The soak's catalog (compiled and named by MCP_TOOLS_FILE, bench/soak/stack.ts): the built-in
// start_mining, and write_report, whose runs (test/fixtures/workflows/artifacts.ts, on the queue
// SOAK_ARTIFACT_TASK_QUEUE names) return an artifact, so the soak's resources/read and
// resources/list probes have something of the owner's to be refused to another principal.
import { miningEntry } from '../../catalog/mining/entry.ts';
import type { CatalogModuleTools } from '../../gateway/hooks.ts';

export const tools: CatalogModuleTools = (env) => [
  miningEntry(env),
  {
    name: 'write_report',
    description: 'Writes a report of `bytes` seeded bytes to the artifact store and returns a link to it.',
    workflow: 'artifactReport',
    taskQueue: env.SOAK_ARTIFACT_TASK_QUEUE ?? 'soak-artifacts',
    waitBudgetMs: 10_000,
    inputSchema: {
      type: 'object',
      properties: {
        bytes: { type: 'integer', minimum: 0, maximum: 65_536 },
        seed: { type: 'integer', minimum: 1, maximum: 4_294_967_295, default: 7 },
        name: { type: 'string', minLength: 1, maxLength: 100, default: 'report.bin' },
      },
      required: ['bytes'],
      additionalProperties: false,
    },
  },
];
