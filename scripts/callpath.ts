// `npm run callpath`: which gateway files one request runs code in, measured with V8's precise
// coverage, not read off the code. The gateway runs in this process (its real entry, main.ts) on a
// dev server with a real worker; each kind of request is made once to warm up, then once between two
// coverage snapshots (taking one resets the counts), and the gateway files with a function called in
// between are printed, their count last.
//   tools/call            start_mining framed as 2026-07-28 without the Tasks extension, outlasting its budget
//   tools/call (2025-11-25)  the same call from a client of the earlier revision
//   tasks/get             a task of a client that declared the extension
//   subscriptions/listen  a stream for that task, until its acknowledgement
// Beside the files, how many times the request parsed a task id (calls of task-ids.ts's parser).
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DevServer } from '../launcher/dev-server.ts';
import { freePort } from '../launcher/free-port.ts';
import { startTestProcess } from '../test/support/child-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODERN = '2026-07-28';
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
// Outlasts the 300 ms budget by far (about 2^30 hashes a block), so every call answers a handle.
const ARGS = { difficulty: 30, blocks: 2 };

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** The task-id parser's name in gateway/temporal/task-ids.ts. */
const TASK_ID_PARSER = 'parse';

/**
 * The gateway files with a function called since the last snapshot (the snapshot resets the counts),
 * and how many times the task-id parser ran.
 */
async function filesRun(): Promise<{ files: string[]; taskIdParses: number }> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  let taskIdParses = 0;
  for (const script of result) {
    if (!script.url.startsWith('file:')) continue;
    const path = relative(ROOT, fileURLToPath(script.url));
    if (!path.startsWith('gateway/')) continue;
    if (script.functions.some((fn) => fn.ranges[0] && fn.ranges[0].count > 0)) files.add(path);
    if (path === 'gateway/temporal/task-ids.ts')
      for (const fn of script.functions)
        if (fn.functionName === TASK_ID_PARSER) taskIdParses += fn.ranges[0]?.count ?? 0;
  }
  return { files: [...files].sort(), taskIdParses };
}

const dataDir = mkdtempSync(join(tmpdir(), 'mcp-callpath-'));
const temporal = await DevServer.start({ dbFilename: join(dataDir, 'temporal.db') });
const taskQueue = `callpath-${process.pid}`;
const worker = await startTestProcess({
  name: 'worker',
  command: process.execPath,
  args: ['--import', 'tsx', 'worker/main.ts'],
  env: { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: taskQueue, MCP_DATA_DIR: dataDir },
  readyText: 'worker: polling task queue',
  readyTimeoutMs: 120_000,
});

const port = await freePort();
Object.assign(process.env, {
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_TASK_QUEUE: taskQueue,
  MCP_HOST: '127.0.0.1',
  MCP_PORT: String(port),
  MCP_WAIT_BUDGET_MS: '300',
  MCP_SERVER_SECRET: 'callpath-server-secret-0123456789abcdef',
  LOG_FORMAT: 'json',
  LOG_LEVEL: 'info',
});
// The gateway's own entry, as `npm run gateway` runs it (its log lines are part of every request).
await import('../gateway/main.ts');
const url = `http://127.0.0.1:${port}/mcp`;

let id = 1;
function modernRequest(method: string, params: Record<string, unknown>, capabilities: object, name?: string) {
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: id++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'callpath', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  };
}

async function post(request: { headers: Record<string, string>; body: string }) {
  const response = await fetch(url, { method: 'POST', ...request });
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : (text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .at(-1) ?? '');
  const message = JSON.parse(data.replace(/^data:/, '')) as {
    result?: Record<string, unknown>;
    error?: unknown;
  };
  if (!message.result) throw new Error(`${response.status} ${text.slice(0, 300)}`);
  return message.result;
}

const callModern = () =>
  post(modernRequest('tools/call', { name: 'start_mining', arguments: ARGS }, {}, 'start_mining'));
const callLegacy = () =>
  post({
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: { name: 'start_mining', arguments: ARGS },
    }),
  });
const startTask = async () => {
  const answer = await post(
    modernRequest('tools/call', { name: 'start_mining', arguments: ARGS }, TASKS, 'start_mining'),
  );
  if (answer.resultType !== 'task') throw new Error(`expected a task, got ${JSON.stringify(answer)}`);
  return String(answer.taskId);
};
const getTask = (taskId: string) => post(modernRequest('tasks/get', { taskId }, TASKS, taskId));

/** Opens a listen stream for the task and reads until its acknowledgement; then closes it. */
async function listen(taskId: string) {
  const gone = new AbortController();
  const request = modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }, TASKS);
  const response = await fetch(url, { method: 'POST', ...request, signal: gone.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let seen = '';
  while (!seen.includes('notifications/subscriptions/acknowledged')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before its acknowledgement: ${seen.slice(0, 300)}`);
    seen += Buffer.from(value).toString();
  }
  gone.abort();
  await reader.cancel().catch(() => {});
}

/** Runs `request` once to warm up, then once measured. */
async function measure(name: string, request: () => Promise<unknown>) {
  await request();
  await filesRun();
  await request();
  // Let what the request set off settle (its log line, the end of its stream) before the snapshot.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const { files, taskIdParses } = await filesRun();
  // The report goes to stderr: stdout carries the gateway's own log lines (npm run callpath drops them).
  console.error(`${name}:`);
  for (const file of files) console.error(`  ${file}`);
  console.error(`  ${files.length} gateway files, ${taskIdParses} task-id parses\n`);
  return files.length;
}

let exitCode = 0;
try {
  const taskId = await startTask();
  await measure('tools/call', callModern);
  await measure('tools/call (2025-11-25 client)', callLegacy);
  await measure('tasks/get', () => getTask(taskId));
  await measure('subscriptions/listen', () => listen(taskId));
} catch (err) {
  console.error(`callpath: ${(err as Error).stack ?? err}`);
  exitCode = 1;
} finally {
  await worker.stop().catch(() => {});
  await temporal.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
