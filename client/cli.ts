// `npm run call -- <tool> [--argument value ...]`: calls any tool the gateway lists and follows it
// to the end, in the Tasks flow (default) or the start/poll flow (--no-tasks, through the tool's own
// companions), showing progress from the first second of the call, then by pushed task status where
// the server offers it (else polls). The tool's flags come from its inputSchema in tools/list.
// `--resume <taskId>` picks a task up again after a restart; `--json` prints JSON lines for scripts.
import { callTool, followWithPush } from './call-tool.ts';
import { CLI_OPTION_NAMES, type CliOptions, parseCliOptions, UsageError } from './cli-options.ts';
import { companionsOf, findCompanions } from './companions.ts';
import { driveTask } from './drive.ts';
import { pollPort } from './poll-port.ts';
import { resumeTool } from './resume-tool.ts';
import { createRpc, type Rpc } from './rpc.ts';
import type { TaskPort } from './task-view.ts';
import { tasksPort } from './tasks-port.ts';
import { jsonReporter, linePrompter, printable, progressReporter, terminalAnswerer } from './terminal.ts';
import { argumentHelp, toolArguments } from './tool-flags.ts';
import { listTools, toolNamed } from './tool-list.ts';

const USAGE = `usage: npm run call -- <tool> [--<argument> VALUE ...] [--args JSON] [--no-tasks] [--json]
                      [--url URL] [--token TOKEN] [--stuck-limit N]
       npm run call -- --resume <taskId> [--no-tasks [--tool <tool>]] [--json] [--url URL] [--token TOKEN]
       npm run call -- <tool> --help                 lists the tool's arguments
A tool's arguments come from its inputSchema (tools/list): --some-name V sets some_name (or someName),
typed by the schema: integer and number must be numbers, a boolean is a flag without a value
(--flag=false to send false), object and array are JSON, anything else is taken as text.
--args '{"some_name": V}' sets arguments as a JSON object (flags win); arguments named like the
CLI's own options (${CLI_OPTION_NAMES.join(', ')}) go there.
--no-tasks: the start/poll flow, through the tool's companions (its result poll, respond, cancel)
--resume --no-tasks: --tool names the tool that started the task when the server has several
--stuck-limit N: give up (and cancel) after N input_required polls without a new request (60)
--json: one JSON line per update on stdout, then the result as the last line (for scripts)
env: MCP_URL (http://127.0.0.1:3000/mcp), MCP_TOKEN`;

/** The port to follow a task with after a restart: tasks/get, or the companions of its tool. */
async function resumePort(rpc: Rpc, options: CliOptions, taskId: string): Promise<TaskPort> {
  const extra = [options.toolName, ...options.toolTokens, options.args === undefined ? undefined : '--args'];
  const given = extra.filter(Boolean).join(' ');
  if (given)
    throw new UsageError(
      `--resume follows a task that exists: it takes no tool or arguments (got ${given}); name its tool with --tool`,
    );
  if (options.tasks) return tasksPort(rpc, taskId);
  const tools = await listTools(rpc);
  return pollPort(rpc, taskId, companionsOf(tools, resumeTool(tools, taskId, options.tool)));
}

/** How to pick the task up again: the flag set that follows it the same way. */
function resumeHint(port: TaskPort, tool: string): string {
  return port.pushable ? `--resume ${port.taskId}` : `--resume ${port.taskId} --no-tasks --tool ${tool}`;
}

async function main(argv: string[]): Promise<number> {
  const options = parseCliOptions(argv);
  const tool = options.toolName;
  if (!tool && !options.resume) {
    if (options.toolTokens.length > 0 && !options.help)
      throw new UsageError(`name the tool before its flags (got ${options.toolTokens.join(' ')})`);
    console.error(USAGE);
    return options.help ? 0 : 2;
  }
  if (options.tool && !options.resume)
    throw new UsageError(
      `--tool names the tool of a task to --resume; to call ${options.tool}, name it first`,
    );
  const rpc = createRpc({ url: options.url, token: options.token, tasks: options.tasks });
  if (options.help) {
    console.error(USAGE);
    if (tool) console.error(`\n${argumentHelp(toolNamed(await listTools(rpc), tool))}`);
    return 0;
  }
  const prompter = linePrompter(process.stdin, process.stderr);
  const drive = {
    answer: terminalAnswerer(prompter, process.stderr),
    onView: options.json ? jsonReporter(process.stdout) : progressReporter(process.stderr),
    stuckLimit: options.stuckLimit,
  };
  let result: Record<string, unknown>;
  try {
    if (options.resume) {
      const port = await resumePort(rpc, options, options.resume);
      result = await driveTask((await followWithPush(rpc, port)) ?? port, drive);
    } else {
      const name = tool as string;
      const tools = await listTools(rpc);
      const args = toolArguments(toolNamed(tools, name), options.toolTokens, options.args);
      // Without tasks the companions are the only way to follow the run: know them before starting
      // it. With tasks they matter only if the server answers with a handle anyway.
      const companions = options.tasks ? findCompanions(tools, name) : companionsOf(tools, name);
      const outcome = await callTool(rpc, name, args, {
        ...drive,
        companions,
        onTask: (port) =>
          options.json
            ? console.log(JSON.stringify({ type: 'task', taskId: port.taskId }))
            : console.error(printable(`task ${port.taskId} (resume with ${resumeHint(port, name)})`)),
      });
      result = outcome.result;
    }
  } finally {
    prompter.close();
  }
  const final = result.structuredContent ?? result;
  console.log(
    options.json ? JSON.stringify({ type: 'result', result: final }) : JSON.stringify(final, null, 2),
  );
  return result.isError ? 1 : 0;
}

// exitCode rather than exit(): output still buffered for a pipe gets written first.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    console.error(`error: ${printable(err.message, { lines: true })}`);
    if (err instanceof UsageError) console.error('(npm run call -- --help for the usage)');
    process.exitCode = 1;
  },
);
