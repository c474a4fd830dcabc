// Hooks a catalog entry names: `hooks: ./report-hooks.ts` (a path relative to the catalog).
import type { ToolHooks } from '../../gateway/hooks.ts';

export const hooks: ToolHooks = {
  noun: 'report',
  summary: (tool, args, principal) => `${tool} ${args.year} for ${principal}`,
};
