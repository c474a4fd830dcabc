// The layering `npm run lint` holds the code to (dependency-cruiser). Inside the gateway, imports
// point down only: http → mcp → temporal → shared; settings/ and the entries (main.ts, app.ts, the
// package's index.ts and plugin.ts, ...) sit on top. The
// generic gateway does not know the demo: catalog entries (catalog/) reach the gateway through
// gateway/hooks.ts alone, and the gateway finds a catalog by its path, never by an import. Workflow
// and activity code import no gateway code, and workflow code loads nothing that is not
// deterministic. No rule has an exemption.
const LAYERS = '^gateway/(http|mcp|temporal|shared)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle anywhere in product code.',
      from: { pathNot: '^(test|bench)/' },
      to: { circular: true },
    },
    {
      name: 'temporal-points-down',
      severity: 'error',
      comment: 'gateway/temporal talks to Temporal; it imports neither the MCP nor the HTTP layer.',
      from: { path: '^gateway/temporal/' },
      to: { path: '^gateway/(http|mcp)/' },
    },
    {
      name: 'mcp-points-down',
      severity: 'error',
      comment: 'gateway/mcp may import gateway/temporal and gateway/shared, never gateway/http.',
      from: { path: '^gateway/mcp/' },
      to: { path: '^gateway/http/' },
    },
    {
      name: 'shared-is-the-bottom',
      severity: 'error',
      comment: 'gateway/shared holds what every layer uses; it imports none of them.',
      from: { path: '^gateway/shared/' },
      to: { path: '^gateway/(http|mcp|temporal)/' },
    },
    {
      name: 'layers-below-the-entry',
      severity: 'error',
      comment:
        'settings/ and the entries (main, app, hooks, the package: index, plugin, routes, standalone) compose ' +
        'the layers; no layer imports them.',
      from: { path: LAYERS },
      to: { path: '^gateway/((main|app|hooks|index|plugin|routes|standalone)\\.ts$|settings/)' },
    },
    {
      name: 'gateway-does-not-know-the-demo',
      severity: 'error',
      comment:
        'The gateway imports no catalog (it loads one by path), no workflow of the demo and no activity.',
      from: { path: '^gateway/' },
      to: { path: '^(catalog|workflows/mining|activities)/' },
    },
    {
      name: 'catalog-entries-use-the-hooks-module',
      severity: 'error',
      comment: 'A catalog entry imports one module of the gateway: gateway/hooks.ts, its public surface.',
      from: { path: '^catalog/' },
      to: { path: '^gateway/', pathNot: '^gateway/hooks\\.ts$' },
    },
    {
      name: 'workers-do-not-know-the-gateway',
      severity: 'error',
      comment:
        'Workflow and activity code import nothing from the gateway (types included) nor from a catalog.',
      from: { path: '^(workflows|activities)/' },
      to: { path: '^(gateway|catalog)/' },
    },
    {
      name: 'workflow-code-is-deterministic',
      severity: 'error',
      comment:
        'What the worker bundles (workflows/) imports no Node.js module, gateway code or activity code ' +
        '(types aside).',
      from: { path: '^workflows/' },
      to: {
        path: '^(gateway|catalog|activities|common|launcher|client)/|^node:',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflow-code-loads-no-node-module',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs'] },
  },
};
