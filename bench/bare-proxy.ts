// A bare HTTP front for Temporal, the floor of any gateway process: POST / starts the same run the
// gateway would (bench/overhead.ts rawStart) and answers its id as JSON. No MCP, no Fastify, no
// logging, no checks. The bench times it beside the gateway: what it adds over a direct
// workflow.start is the cost of one more process and HTTP hop on this machine, which every
// gateway pays before doing anything of its own.
//
//   TEMPORAL_ADDRESS=... TEMPORAL_TASK_QUEUE=... PORT=... tsx bench/bare-proxy.ts
import { createServer } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { temporalEnv } from '../common/temporal-env.ts';
import { rawStart } from './overhead.ts';

const temporal = temporalEnv();
const connection = await Connection.connect(temporal.connectionOptions);
const client = new Client({ connection, namespace: temporal.namespace });

const server = createServer((request, response) => {
  request.resume();
  request.on('end', async () => {
    try {
      const handle = await rawStart(client, temporal.taskQueue);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ workflowId: handle.workflowId }));
    } catch (err) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: (err as Error).message }));
    }
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  console.log(`bare proxy: listening on ${process.env.PORT}`);
});
process.once('SIGTERM', () => {
  server.close();
  void connection.close().finally(() => process.exit(0));
});
