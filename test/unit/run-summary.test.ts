// What the Temporal Web UI shows for a run (summary, details) and where the request's MCP client
// and protocol revision come from, for both protocol eras. Pure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { miningTool } from '../../catalog/mining/entry.ts';
import { genericPresentation } from '../../gateway/mcp/presentation.ts';
import { requestOrigin } from '../../gateway/mcp/tools-call.ts';
import { runDetails } from '../../gateway/temporal/run-texts.ts';

const noSession = { getClientVersion: () => undefined, getNegotiatedProtocolVersion: () => undefined };

function ctx(envelope: Record<string, unknown> | undefined, headers: Record<string, string> = {}) {
  return {
    mcpReq: { envelope } as never,
    http: { req: new Request('http://127.0.0.1/mcp', { method: 'POST', headers }) },
  };
}

describe('requestOrigin', () => {
  test('a 2026-07-28 request: client and revision from its _meta envelope', () => {
    const origin = requestOrigin(
      noSession,
      ctx(
        {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'vscode', version: '1.99.0' },
        },
        { 'user-agent': 'node' },
      ),
    );
    assert.deepEqual(origin, {
      clientName: 'vscode',
      clientVersion: '1.99.0',
      protocolVersion: '2026-07-28',
      userAgent: 'node',
    });
  });

  test('a 2025-era stateless request: the MCP-Protocol-Version header, no client name', () => {
    const origin = requestOrigin(noSession, ctx(undefined, { 'mcp-protocol-version': '2025-11-25' }));
    assert.deepEqual(origin, { protocolVersion: '2025-11-25' });
  });

  test('a 2025-era session: the initialize clientInfo and negotiated revision', () => {
    const session = {
      getClientVersion: () => ({ name: 'claude-code', version: '2.0.1' }),
      getNegotiatedProtocolVersion: () => '2025-06-18',
    };
    assert.deepEqual(requestOrigin(session, { mcpReq: {} as never }), {
      clientName: 'claude-code',
      clientVersion: '2.0.1',
      protocolVersion: '2025-06-18',
    });
  });

  test('client-supplied values are cut to a bounded length', () => {
    const origin = requestOrigin(
      noSession,
      ctx({ 'io.modelcontextprotocol/clientInfo': { name: 'x'.repeat(5000), version: 7 } }),
    );
    assert.equal(origin.clientName?.length, 200);
    assert.equal(origin.clientVersion, undefined);
  });
});

describe('run summary and details', () => {
  const run = {
    tool: 'start_mining',
    arguments: { difficulty: 22, blocks: 3, require_approval: true },
    principal: 'alice',
  };

  test('the mining summary names the tool, the key arguments and the caller', () => {
    const summary = miningTool({ taskQueue: '', waitBudgetMs: 0 }).presentation.summary(
      run.tool,
      run.arguments,
      run.principal,
    );
    assert.equal(summary, 'start_mining: 3 block(s) at difficulty 22, approval required for alice');
  });

  test('any other tool is summarised by its name and caller', () => {
    assert.equal(genericPresentation.summary('start_report', { year: 2026 }, 'bob'), 'start_report for bob');
  });

  test('the details name the caller, the MCP client, the protocol revision and the arguments', () => {
    const details = runDetails({
      ...run,
      origin: { clientName: 'vscode', clientVersion: '1.99.0', protocolVersion: '2026-07-28' },
    });
    assert.match(details, /\*\*Caller:\*\* `alice`/);
    assert.match(details, /\*\*MCP client:\*\* `vscode` 1\.99\.0/);
    assert.match(details, /\*\*Protocol revision:\*\* 2026-07-28/);
    assert.match(details, /"require_approval": true/);
  });

  test('caller-supplied text cannot break out of its span or the arguments block, and is bounded', () => {
    const details = runDetails({
      ...run,
      arguments: { data: 'x\n```\n[click here](https://evil.example)\n```' },
      origin: {
        clientName: 'evil`\n# Heading',
        clientVersion: '1.0 **bold**',
        protocolVersion: '2026-07-28',
      },
    });
    assert.match(details, /\*\*MCP client:\*\* `evil {2}# Heading` 1\.0 bold/);
    // The arguments' own fence (three backticks) cannot close the block: its fence is longer.
    assert.ok(details.includes('````json\n'), details);
    assert.ok(details.endsWith('\n````'), details);
    const big = runDetails({ ...run, arguments: { data: 'y'.repeat(50_000) } });
    assert.ok(Buffer.byteLength(big) < 10_000, `${Buffer.byteLength(big)} bytes`);
    assert.match(big, /\(\d+ more characters\)/);
  });

  test('a client that did not name itself on the request is said so, with its User-Agent', () => {
    const details = runDetails({ ...run, origin: { protocolVersion: '2025-11-25', userAgent: 'node' } });
    assert.match(details, /\*\*MCP client:\*\* not named on this request \(User-Agent `node`\)/);
    assert.match(details, /\*\*Protocol revision:\*\* 2025-11-25/);
  });
});
