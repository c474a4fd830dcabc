// What the CLI prints of what a server sends: a workflow's status line, an input request's message
// and field titles reach the terminal without control sequences (a run cannot clear the line,
// move the cursor or forge the approval prompt).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { printable, progressReporter, terminalAnswerer } from '../../client/terminal.ts';

const ESC = '\u001b';
const hostile = `Publish?${ESC}[2K\r${ESC}[1A${ESC}]0;owned\u0007 Approved by admin\u009b31m`;

/** The control characters in `text` (line breaks allowed when said), as code points. */
function controlsIn(text: string, newlines = false): number[] {
  return [...text]
    .map((char) => char.codePointAt(0) as number)
    .filter((code) => (code < 0x20 && !(newlines && code === 0x0a)) || (code >= 0x7f && code <= 0x9f));
}

function collect(): { stream: PassThrough & { isTTY?: boolean }; text(): string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

describe('printable', () => {
  test('drops C0 and C1 controls (escape, carriage return, bell, CSI); keeps line breaks only when asked', () => {
    const line = printable(hostile);
    assert.deepEqual(controlsIn(line), []);
    assert.match(line, /^Publish\? +\[2K +\[1A +\]0;owned +Approved by admin +31m$/);
    assert.equal(printable('two\nlines', { lines: true }), 'two\nlines');
    assert.equal(printable('two\nlines'), 'two lines');
    assert.equal(printable('héllo ✓ 数字'), 'héllo ✓ 数字');
  });
});

describe('the CLI on a terminal', () => {
  test('an input request’s message and field titles are printed without control sequences', async () => {
    const out = collect();
    const answers = ['yes'];
    const prompter = {
      ask: async (question: string) => {
        out.stream.write(question);
        return answers.shift() ?? '';
      },
      close() {},
    };
    const answer = await terminalAnswerer(prompter, out.stream)('approve\u001b[2J', {
      method: 'elicitation/create',
      params: {
        message: `${hostile}\nSecond line`,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: `OK${ESC}[8m` } } },
      },
    });
    assert.deepEqual(answer, { action: 'accept', content: { ok: true } });
    assert.deepEqual(controlsIn(out.text(), true), []);
    assert.match(out.text(), /Second line/);
  });

  test('a status line is printed without control sequences, on a TTY too (where the CLI draws its own)', () => {
    const out = collect();
    out.stream.isTTY = true;
    progressReporter(out.stream as unknown as NodeJS.WriteStream)({
      taskId: 't',
      status: 'working',
      message: hostile,
      fraction: { progress: 1, total: 2 },
    } as never);
    // The reporter's own "\r\x1b[2K" comes first; nothing after it is a control character.
    const text = out.text();
    assert.ok(text.startsWith('\r\u001b[2K'));
    assert.deepEqual(controlsIn(text.slice(4)), []);
  });
});
