// The CLI's generic parts, without a server: a tool's flags typed by its inputSchema, the CLI's own
// options among them, the companions read from tools/list, the tool of a resumed task, and the SSE
// frame parser.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseCliOptions, UsageError } from '../../client/cli-options.ts';
import { companionsOf, defaultCompanions, findCompanions, startTools } from '../../client/companions.ts';
import { resumeTool, taskIdPrefix } from '../../client/resume-tool.ts';
import { readSseFrames } from '../../client/sse.ts';
import { argumentHelp, flagName, toolArguments } from '../../client/tool-flags.ts';
import type { ListedTool } from '../../client/tool-list.ts';

const report: ListedTool = {
  name: 'build_report',
  title: 'Build a report',
  inputSchema: {
    type: 'object',
    properties: {
      year: { type: 'integer', description: 'The year.' },
      ratio: { type: 'number' },
      draft: { type: 'boolean' },
      title_text: { type: 'string' },
      stepMs: { type: 'integer' },
      filters: { type: 'object' },
      tags: { type: 'array' },
      level: { enum: ['low', 'high'] },
      extra: {},
      note: { type: ['string', 'null'] },
    },
    required: ['year'],
  },
};

/** A start tool and its companions as the gateway lists them (texts of gateway/mcp). */
function listing(start: string, names: { result: string; cancel: string; respond?: string }): ListedTool[] {
  const workflowId = {
    type: 'string',
    description: `The workflow_id returned by ${start}, copied exactly. Never invent or alter it.`,
  };
  return [
    {
      name: start,
      description: `… then call ${names.result} with that exact \`workflow_id\`.`,
      inputSchema: {},
    },
    {
      name: names.result,
      title: 'Check a run',
      inputSchema: { properties: { workflow_id: workflowId } },
      annotations: { readOnlyHint: true },
    },
    {
      name: names.cancel,
      title: 'Cancel a run',
      inputSchema: { properties: { workflow_id: workflowId } },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    ...(names.respond
      ? [
          {
            name: names.respond,
            title: "Answer a run's input request",
            inputSchema: {
              properties: { workflow_id: workflowId, key: { type: 'string' }, action: { type: 'string' } },
            },
            annotations: { readOnlyHint: false, destructiveHint: false },
          },
        ]
      : []),
  ];
}

const mining = listing('start_mining', {
  result: 'get_mining_result',
  cancel: 'cancel_mining',
  respond: 'respond_to_mining',
});
const ledger = listing('mine_ledger', {
  result: 'ledger_status',
  cancel: 'drop_ledger',
  respond: 'approve_ledger',
});
const echo = listing('echo_slowly', { result: 'get_echo_slowly_result', cancel: 'cancel_echo_slowly' });

describe('tool flags → arguments', () => {
  test('each flag typed by the schema: numbers, boolean flags, text, JSON', () => {
    const args = toolArguments(report, [
      '--year',
      '2024',
      '--ratio=-0.5',
      '--draft',
      '--title-text',
      '42',
      '--step-ms',
      '300',
      '--filters',
      '{"region":"eu"}',
      '--tags',
      '["a","b"]',
      '--level',
      'high',
      '--extra',
      '[1,2]',
      '--note',
      'true',
    ]);
    assert.deepEqual(args, {
      year: 2024,
      ratio: -0.5,
      draft: true,
      title_text: '42',
      stepMs: 300,
      filters: { region: 'eu' },
      tags: ['a', 'b'],
      level: 'high',
      extra: [1, 2],
      note: 'true',
    });
  });

  test('a boolean is sent false with --flag=false; a property spelt as it is works too', () => {
    assert.deepEqual(toolArguments(report, ['--draft=false', '--title_text', 'x', '--stepMs', '5']), {
      draft: false,
      title_text: 'x',
      stepMs: 5,
    });
  });

  test('a value may start with a dash: the flag takes the next token whatever it is', () => {
    assert.deepEqual(toolArguments(report, ['--year', '-5', '--title-text', '--draft']), {
      year: -5,
      title_text: '--draft',
    });
  });

  test('--args sets arguments as JSON, and flags win over it', () => {
    assert.deepEqual(toolArguments(report, ['--year', '2025'], '{"year": 1999, "json": true}'), {
      year: 2025,
      json: true,
    });
    assert.deepEqual(toolArguments(report, [], '{"draft": true}'), { draft: true });
  });

  test('start_mining’s flags as they always were', () => {
    const startMining: ListedTool = {
      name: 'start_mining',
      inputSchema: {
        properties: {
          difficulty: { type: 'integer' },
          blocks: { type: 'integer' },
          data: { type: 'string' },
          require_approval: { type: 'boolean' },
          idempotency_key: { type: 'string' },
        },
      },
    };
    assert.deepEqual(
      toolArguments(startMining, [
        '--difficulty',
        '8',
        '--blocks',
        '2',
        '--data',
        'hi',
        '--require-approval',
        '--idempotency-key',
        'k-1',
      ]),
      { difficulty: 8, blocks: 2, data: 'hi', require_approval: true, idempotency_key: 'k-1' },
    );
  });

  test('clear errors: unknown flag (listing the arguments), not a number, bad JSON, no value, a stray word', () => {
    assert.throws(
      () => toolArguments(report, ['--yeer', '1']),
      (err: Error) => {
        assert.match(err.message, /^unknown flag --yeer for build_report; its arguments: --year <integer>, /);
        assert.match(err.message, /--draft, /);
        assert.match(err.message, /--filters <JSON>/);
        assert.match(err.message, /--args/);
        return true;
      },
    );
    assert.throws(
      () => toolArguments(report, ['--year', 'abc']),
      /^Error: --year: expected an integer, got "abc"$/,
    );
    assert.throws(() => toolArguments(report, ['--year', '1.5']), /--year: expected an integer, got "1.5"/);
    assert.throws(() => toolArguments(report, ['--year', '']), /--year: expected an integer/);
    assert.throws(() => toolArguments(report, ['--ratio', '1e']), /--ratio: expected a number, got "1e"/);
    assert.throws(() => toolArguments(report, ['--draft=yes']), /--draft: expected true or false, got "yes"/);
    assert.throws(
      () => toolArguments(report, ['--filters', '{oops']),
      /--filters: expected JSON \(an object\)/,
    );
    assert.throws(
      () => toolArguments(report, ['--tags', '{}']),
      /--tags: expected JSON \(an array\), got "\{\}"/,
    );
    assert.throws(() => toolArguments(report, ['--year']), /--year needs a value \(--year <integer>\)/);
    assert.throws(
      () => toolArguments(report, ['2024']),
      /unexpected argument "2024": build_report's arguments are flags/,
    );
    assert.throws(() => toolArguments(report, [], '[1]'), /--args: expected a JSON object, got "\[1\]"/);
    assert.throws(() => toolArguments(report, [], '{'), /--args: expected a JSON object/);
    assert.throws(
      () => toolArguments({ name: 'bare', inputSchema: {} }, ['--x']),
      /unknown flag --x for bare; it takes no arguments/,
    );
  });

  test('flag names and the help lines', () => {
    assert.equal(flagName('require_approval'), 'require-approval');
    assert.equal(flagName('stepMs'), 'step-ms');
    const help = argumentHelp(report);
    assert.match(help, /^build_report: Build a report\n/);
    assert.match(help, /--year <integer> +The year\. \(required\)/);
    assert.match(help, /\n {2}--draft\n/);
  });
});

describe('the CLI’s own options', () => {
  test('anywhere on the line; the rest is the tool (its name first) and its flags, in order', () => {
    const options = parseCliOptions(
      ['start_mining', '--difficulty', '8', '--no-tasks', '--url=http://h/mcp', '--blocks', '2', '--json'],
      {},
    );
    assert.equal(options.toolName, 'start_mining');
    assert.deepEqual(options.toolTokens, ['--difficulty', '8', '--blocks', '2']);
    assert.equal(options.tasks, false);
    assert.equal(options.json, true);
    assert.equal(options.url, 'http://h/mcp');
    assert.equal(options.stuckLimit, 60);
  });

  test('environment defaults, --resume with --tool, -h', () => {
    const options = parseCliOptions(['--resume', 'mine-x', '--tool', 'start_mining', '-h'], {
      MCP_URL: 'http://env/mcp',
      MCP_TOKEN: 't',
    });
    assert.equal(options.url, 'http://env/mcp');
    assert.equal(options.token, 't');
    assert.equal(options.resume, 'mine-x');
    assert.equal(options.tool, 'start_mining');
    assert.equal(options.help, true);
    assert.equal(options.toolName, undefined);
  });

  test('usage errors: a missing value, a bad --stuck-limit', () => {
    assert.throws(() => parseCliOptions(['x', '--url'], {}), UsageError);
    assert.throws(
      () => parseCliOptions(['x', '--stuck-limit', '0'], {}),
      /--stuck-limit: expected a positive integer/,
    );
  });
});

describe('companions from tools/list', () => {
  test('named by their workflow_id description, told apart by shape and annotations', () => {
    assert.deepEqual(findCompanions(mining, 'start_mining'), {
      result: 'get_mining_result',
      cancel: 'cancel_mining',
      respond: 'respond_to_mining',
    });
    assert.deepEqual(findCompanions([...mining, ...ledger], 'mine_ledger'), {
      result: 'ledger_status',
      cancel: 'drop_ledger',
      respond: 'approve_ledger',
    });
    assert.deepEqual(findCompanions(echo, 'echo_slowly'), {
      result: 'get_echo_slowly_result',
      cancel: 'cancel_echo_slowly',
    });
  });

  test('a server that does not describe them: the naming rule, for the tools it lists', () => {
    const bare = ['start_report', 'get_report_result', 'cancel_report'].map((name) => ({ name }));
    assert.deepEqual(findCompanions(bare, 'start_report'), {
      result: 'get_report_result',
      cancel: 'cancel_report',
    });
    assert.deepEqual(defaultCompanions('mine_chain'), {
      result: 'get_mine_chain_result',
      cancel: 'cancel_mine_chain',
      respond: 'respond_to_mine_chain',
    });
    assert.equal(findCompanions(bare, 'other'), undefined);
    assert.throws(
      () => companionsOf(bare, 'other'),
      /no start\/poll companions for other: no tool whose workflow_id is "returned by other", and no get_other_result/,
    );
  });

  test('start tools are those with companions, not the companions themselves', () => {
    assert.deepEqual(
      startTools([...mining, ...ledger, { name: 'plain' }]).map((tool) => tool.name),
      ['start_mining', 'mine_ledger'],
    );
  });
});

describe('the tool of a resumed task', () => {
  const body = `${'A'.repeat(31)}_`;

  test('the id prefix before the 32 characters of body and tag', () => {
    assert.equal(taskIdPrefix(`mine-${body}`), 'mine');
    assert.equal(taskIdPrefix(`mine_ledger-${body}`), 'mine_ledger');
    assert.equal(taskIdPrefix('mine-short'), undefined);
    assert.equal(taskIdPrefix(`mine-${'A'.repeat(31)}!`), undefined);
    assert.equal(
      taskIdPrefix(`mine_ledger-${body}.${'B'.repeat(35)}`),
      'mine_ledger',
      'with its slot and run',
    );
    assert.equal(taskIdPrefix(`mine~${'C'.repeat(35)}`), 'mine');
    assert.equal(taskIdPrefix(`mine-${body}.${'B'.repeat(34)}`), undefined);
  });

  test('the only start tool; else the one the prefix names; else --tool', () => {
    assert.equal(resumeTool(mining, `mine-${body}`), 'start_mining');
    const both = [...mining, ...ledger];
    assert.equal(resumeTool(both, `mine_ledger-${body}`), 'mine_ledger');
    assert.equal(resumeTool(both, `mine-${body}`, 'start_mining'), 'start_mining');
    assert.throws(
      () => resumeTool(both, `mine-${body}`),
      /cannot tell which tool started mine-\S+ \(its prefix "mine" names none of them\): name it with --tool \(one of start_mining, mine_ledger\)/,
    );
    assert.throws(
      () => resumeTool(both, 'x', 'ledger_status'),
      /--tool ledger_status: not a start\/poll tool/,
    );
    assert.throws(() => resumeTool([{ name: 'plain' }], 'x'), /lists no start\/poll tools/);
  });
});

describe('SSE frames', () => {
  async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
    for (const part of parts) yield new TextEncoder().encode(part);
  }

  test('split across chunks, CRLF, comments, several data lines, a last frame without its blank line', async () => {
    const frames = [];
    for await (const frame of readSseFrames(
      chunks(
        ': keep-alive\n\nevent: message\ndata: {"a"',
        ':1}\r',
        '\n\r\ndata: {"b":\ndata: 2}\n\ndata:not json\n\n',
        'data: {"c":3}\n',
      ),
    ))
      frames.push(frame);
    assert.deepEqual(frames, [
      { raw: ': keep-alive' },
      { raw: 'event: message\ndata: {"a":1}', data: '{"a":1}', message: { a: 1 } },
      { raw: 'data: {"b":\ndata: 2}', data: '{"b":\n2}', message: { b: 2 } },
      { raw: 'data:not json', data: 'not json' },
      { raw: 'data: {"c":3}', data: '{"c":3}', message: { c: 3 } },
    ]);
  });
});
