// SDK clients connected to the gateway over Streamable HTTP: the v2 client (2026-07-28, with or
// without the Tasks extension) and the v1 client (2025-11-25).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PROTOCOL_VERSION, TASKS_CLIENT, WITH_TASKS, WITHOUT_TASKS } from './mcp-http.ts';

export async function connectV2(url: URL, { tasks }: { tasks: boolean }): Promise<Client> {
  const client = new Client(tasks ? TASKS_CLIENT.clientInfo : { name: 'gateway-test-v2', version: '1.0.0' }, {
    capabilities: (tasks ? WITH_TASKS : WITHOUT_TASKS) as never,
    versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

export async function connectV1(url: URL): Promise<V1Client> {
  const client = new V1Client({ name: 'gateway-test-v1', version: '1.0.0' });
  await client.connect(new V1Transport(url));
  return client;
}

/** The structuredContent of a tool result, as a record. */
export function structured(result: unknown): Record<string, unknown> {
  const content = (result as { structuredContent?: unknown }).structuredContent;
  if (!content || typeof content !== 'object')
    throw new Error(`no structuredContent in ${JSON.stringify(result)}`);
  return content as Record<string, unknown>;
}
