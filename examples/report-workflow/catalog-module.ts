// A catalog module: MCP_TOOLS_FILE=examples/report-workflow/catalog-module.ts
import type { CatalogModuleTools } from '../../gateway/hooks.ts';

export const tools: CatalogModuleTools = (env) => [
  {
    name: 'start_report',
    description: 'Builds the yearly sales report for `year`.',
    workflow: 'buildReport',
    taskQueue: 'reports',
    inputSchema: { type: 'object', properties: { year: { type: 'integer' } }, required: ['year'] },
    hooks: {
      noun: 'report',
      summary: (tool, args) => `${tool} ${args.year} (${env.REPORT_REGION ?? 'all regions'})`,
    },
  },
];
