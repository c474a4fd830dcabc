// Lists the gateway's tools and calls start_mining with the MCP TypeScript SDK v2:
//   npm install @modelcontextprotocol/client
//   MCP_TOKEN=<token> npx tsx client.ts    # MCP_URL: default http://127.0.0.1:3000/mcp
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = new URL(process.env.MCP_URL || 'http://127.0.0.1:3000/mcp');
const token = process.env.MCP_TOKEN;
const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};

const client = new Client({ name: 'my-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
try {
  const { tools } = await client.listTools();
  console.log('tools:', tools.map((tool) => tool.name).join(', '));
  const result = await client.callTool({ name: 'start_mining', arguments: { difficulty: 8, blocks: 2 } });
  // Inline when done within the budget; else a handle: poll get_mining_result with its workflow_id.
  console.log(JSON.stringify(result.structuredContent, null, 2));
} finally {
  await client.close();
}
