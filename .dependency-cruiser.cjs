// The layering `npm run lint` holds the code to (dependency-cruiser). Inside the gateway, imports
// point down only: http → mcp → temporal → shared; settings/ and main.ts sit on top. The generic
// gateway does not know the demo, and workflow code loads nothing that is not deterministic.
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
        'settings/ and main.ts compose the layers; no layer imports them (but the OAuth settings type, ' +
        'which the HTTP layer checks tokens by).',
      from: { path: LAYERS },
      to: { path: '^gateway/(main\\.ts$|settings/)', pathNot: '^gateway/settings/oauth\\.ts$' },
    },
    {
      name: 'gateway-does-not-know-the-demo',
      severity: 'error',
      comment:
        'Mining is a catalog entry (workflows/mining/); only settings/catalog.ts names it, as the built-in catalog.',
      from: { path: LAYERS },
      to: { path: '^(workflows/mining|activities)/' },
    },
    {
      name: 'workflow-code-is-deterministic',
      severity: 'error',
      comment:
        'What the worker bundles (workflows/, but the mining catalog entry the gateway reads) imports no ' +
        'Node.js module, gateway code or activity code (types and the import-free genesis hash aside).',
      from: { path: '^workflows/', pathNot: '^workflows/mining/(tool|presentation)\\.ts$' },
      to: {
        pathNot: '^activities/pow/genesis\\.ts$',
        path: '^(gateway|activities|common|launcher|client)/|^node:',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflow-code-loads-no-node-module',
      severity: 'error',
      from: { path: '^workflows/', pathNot: '^workflows/mining/(tool|presentation)\\.ts$' },
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
