// `npm run call -- <tool> [--flag value ...]`: calls a tool on the gateway and follows it to the
// end, in the Tasks flow (default) or the start/poll flow (--no-tasks), showing progress from the
// first second of the call, then by pushed task status where the server offers it (else polls).
// `--resume <taskId>` picks a task up again after a restart; `--json` prints JSON lines for scripts.
import { parseArgs } from 'node:util';
import { callTool, followWithPush } from './call-tool.ts';
import { driveTask } from './drive.ts';
import { pollPort } from './poll-port.ts';
import { createRpc } from './rpc.ts';
import { tasksPort } from './tasks-port.ts';
import { jsonReporter, linePrompter, progressReporter, terminalAnswerer } from './terminal.ts';

const USAGE = `usage: npm run call -- <tool> [--difficulty N] [--blocks N] [--data TEXT] [--require-approval]
                      [--idempotency-key KEY] [--url URL] [--token TOKEN] [--no-tasks]
                      [--stuck-limit N] [--json]
       npm run call -- --resume <taskId> [--no-tasks] [--url URL] [--token TOKEN]
--json: one JSON line per update on stdout, then the result as the last line (for scripts)
env: MCP_URL (http://127.0.0.1:3000/mcp), MCP_TOKEN`;

/** Tool arguments from the flags: --some-flag 3 becomes { some_flag: 3 }. */
export function toolArguments(values: Record<string, unknown>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const numbers = ['difficulty', 'blocks'];
  for (const [flag, value] of Object.entries(values)) {
    if (
      ['url', 'token', 'no-tasks', 'resume', 'stuck-limit', 'help', 'json'].includes(flag) ||
      value === undefined
    )
      continue;
    const name = flag.replaceAll('-', '_');
    args[name] = numbers.includes(name) ? Number(value) : value;
  }
  return args;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      difficulty: { type: 'string' },
      blocks: { type: 'string' },
      data: { type: 'string' },
      'require-approval': { type: 'boolean' },
      'idempotency-key': { type: 'string' },
      url: { type: 'string', default: process.env.MCP_URL ?? 'http://127.0.0.1:3000/mcp' },
      token: { type: 'string', default: process.env.MCP_TOKEN },
      'no-tasks': { type: 'boolean', default: false },
      resume: { type: 'string' },
      'stuck-limit': { type: 'string', default: '60' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const tool = positionals[0];
  if (values.help || (!tool && !values.resume)) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const tasks = !values['no-tasks'];
  const rpc = createRpc({ url: values.url, token: values.token, tasks });
  const prompter = linePrompter(process.stdin, process.stderr);
  const drive = {
    answer: terminalAnswerer(prompter, process.stderr),
    onView: values.json ? jsonReporter(process.stdout) : progressReporter(process.stderr),
    stuckLimit: Number(values['stuck-limit']),
  };
  let result: Record<string, unknown>;
  try {
    if (values.resume) {
      const port = tasks ? tasksPort(rpc, values.resume) : pollPort(rpc, values.resume);
      result = await driveTask((await followWithPush(rpc, port)) ?? port, drive);
    } else {
      const outcome = await callTool(rpc, tool as string, toolArguments(values), {
        ...drive,
        onTask: (port) =>
          values.json
            ? console.log(JSON.stringify({ type: 'task', taskId: port.taskId }))
            : console.error(`task ${port.taskId} (resume with --resume ${port.taskId})`),
      });
      result = outcome.result;
    }
  } finally {
    prompter.close();
  }
  const final = result.structuredContent ?? result;
  console.log(
    values.json ? JSON.stringify({ type: 'result', result: final }) : JSON.stringify(final, null, 2),
  );
  return result.isError ? 1 : 0;
}

// exitCode rather than exit(): output still buffered for a pipe gets written first.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    console.error(`error: ${err.message}`);
    process.exitCode = 1;
  },
);
