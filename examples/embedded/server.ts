// A Fastify app of its own that embeds the gateway: its own route, one quick tool of its own
// (answered inline by its handler) and the catalog's durable mining tool, on one MCP endpoint under
// /agents. Temporal and the gateway's settings come from the environment (TEMPORAL_ADDRESS,
// TEMPORAL_TASK_QUEUE, MCP_WAIT_BUDGET_MS, ...); a worker serves the mining workflows.
// Run with Node.js 24 or 26, which run TypeScript as it is: `node server.ts`.
import Fastify from 'fastify';
import { loadGatewaySettings, temporalMcp } from 'temporal-mcp-gateway';

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } });

// The host's own routes stay its own.
app.get('/', async () => ({ service: 'example shop', mcp: '/agents/mcp' }));

await app.register(temporalMcp, {
  prefix: '/agents',
  settings: await loadGatewaySettings(),
  // /agents/healthz, /agents/readyz and /agents/metrics.
  probes: true,
  tools: [
    {
      name: 'count_words',
      description: 'Counts the words of a text.',
      // A JSON Schema (or a zod object schema, with zod installed): checked before the handler runs.
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 10_000 } },
        required: ['text'],
      },
      outputSchema: { type: 'object', properties: { words: { type: 'integer' } }, required: ['words'] },
      handler: ({ text }) => {
        const words = String(text).split(/\s+/).filter(Boolean).length;
        return { content: [{ type: 'text', text: `${words} words` }], structuredContent: { words } };
      },
    },
  ],
});

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
app.log.info(`MCP endpoint: ${address}/agents/mcp`);

// Closing the app ends the gateway's streams, answers its waiting calls and closes its Temporal connection.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void app.close());
