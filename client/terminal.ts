// What the CLI shows and asks on a terminal: a progress bar on a TTY, plain lines otherwise, and
// elicitation forms answered field by field.
import { createInterface } from 'node:readline/promises';
import type { ElicitationRequest, InputRequest, InputResponse } from '../workflows/mcp-contract.ts';
import type { Answerer } from './answerer.ts';
import type { TaskView } from './task-view.ts';

/**
 * Server-supplied text made safe for a terminal: control characters (escape sequences, carriage
 * returns, C1 controls) removed, so a workflow cannot move the cursor, clear lines or forge a prompt;
 * line breaks kept only where asked.
 */
export function printable(text: unknown, { lines = false } = {}): string {
  let out = '';
  for (const char of String(text)) {
    const code = char.codePointAt(0) as number;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    if (!control || (lines && char === '\n')) out += char;
    else if (!lines) out += ' ';
  }
  return out;
}

function progressLine(view: TaskView, width = 30): string {
  const bar = (share: number) => {
    const filled = Math.round(Math.min(1, Math.max(0, share)) * width);
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  };
  if (view.fraction) {
    const { progress, total } = view.fraction;
    const message = view.message ? ` ${printable(view.message)}` : '';
    if (total && total > 0)
      return `${bar(progress / total)} ${Math.floor((progress / total) * 100)}%${message}`;
    return `${printable(view.status)}${message}`;
  }
  const { blocksDone, blocksTotal, hashesTried } = view.progress ?? {};
  const hashes = hashesTried === undefined ? '' : ` ${hashesTried.toLocaleString('en-US')} hashes`;
  if (typeof blocksDone === 'number' && typeof blocksTotal === 'number' && blocksTotal > 0) {
    return `${bar(blocksDone / blocksTotal)} ${blocksDone}/${blocksTotal} blocks${hashes}`;
  }
  return `${printable(view.status)}${view.message ? `: ${printable(view.message)}` : ''}`;
}

export function progressReporter(out: NodeJS.WriteStream): (view: TaskView) => void {
  let last = '';
  return (view) => {
    const line =
      view.status === 'working'
        ? progressLine(view)
        : `${printable(view.status)}${view.message ? `: ${printable(view.message)}` : ''}`;
    if (out.isTTY) {
      out.write(`\r\x1b[2K${line}`);
      if (view.status !== 'working') out.write('\n');
    } else if (line !== last) {
      out.write(`${line}\n`);
    }
    last = line;
  };
}

/** For scripts (--json): each view as one JSON line, without the final result (printed last). */
export function jsonReporter(out: NodeJS.WritableStream): (view: TaskView) => void {
  return ({ result: _result, ...view }) => {
    out.write(`${JSON.stringify({ type: 'view', ...view })}\n`);
  };
}

/** A prompt reader that keeps lines typed (or piped) ahead of the question; '' once input ends. */
export interface Prompter {
  ask(question: string): Promise<string>;
  close(): void;
}

export function linePrompter(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Prompter {
  let rl: ReturnType<typeof createInterface> | undefined;
  let lines: AsyncIterator<string> | undefined;
  return {
    async ask(question) {
      if (!rl) {
        rl = createInterface({ input, terminal: false });
        lines = rl[Symbol.asyncIterator]();
      }
      output.write(question);
      const next = await (lines as AsyncIterator<string>).next();
      return next.done ? '' : next.value.trim();
    },
    close() {
      rl?.close();
    },
  };
}

/** Answers elicitation forms field by field; an empty answer to the first required field declines. */
export function terminalAnswerer(prompter: Prompter, output: NodeJS.WritableStream): Answerer {
  return async (key: string, asked: InputRequest): Promise<InputResponse> => {
    // Only forms reach this answerer: the CLI declares no sampling or roots capability.
    const request = asked as ElicitationRequest;
    output.write(
      `\n${printable(request.params.message, { lines: true })}\n(request ${printable(key)}; an empty first answer declines)\n`,
    );
    const content: Record<string, unknown> = {};
    const { properties, required = [] } = request.params.requestedSchema;
    for (const [field, schema] of Object.entries(properties)) {
      const hint = schema.type === 'boolean' ? ' [y/n]' : '';
      const raw = await prompter.ask(`${printable(schema.title ?? field)}${hint}: `);
      if (raw === '') {
        if (Object.keys(content).length === 0 && required.includes(field)) return { action: 'decline' };
        continue;
      }
      content[field] = schema.type === 'boolean' ? /^(y|yes|true|1)$/i.test(raw) : raw;
    }
    return { action: 'accept', content };
  };
}
