// The client's stuck-poll guard against a server that never advances: it keeps asking for the
// same input after it was answered. The client must answer once, poll N more times, cancel, fail.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { callTool } from '../client/call-tool.ts';
import { createRpc } from '../client/rpc.ts';
import { StuckPollError } from '../client/stuck-guard.ts';
import { approvalRequest } from '../workflows/mining/approval.ts';

const chain = {
  difficulty: 8,
  data: 'd',
  blocks: [],
  finalHash: 'cd'.repeat(32),
  totalHashesTried: 1,
  totalMs: 1,
};

/** A JSON-RPC server whose task is forever input_required with one key; records each request. */
async function stuckServer(): Promise<{ url: string; transcript: string[]; server: Server }> {
  const transcript: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body);
      let result: unknown = {};
      if (method === 'tools/call') {
        transcript.push(`tools/call ${params.name}`);
        const now = '2026-01-01T00:00:00.000Z';
        result = {
          resultType: 'task',
          taskId: 'task-1',
          status: 'working',
          createdAt: now,
          lastUpdatedAt: now,
          ttlMs: 60_000,
          pollIntervalMs: 5,
        };
      } else if (method === 'tasks/get') {
        transcript.push(`tasks/get ${params.taskId}`);
        result = {
          resultType: 'complete',
          taskId: params.taskId,
          status: 'input_required',
          pollIntervalMs: 5,
          inputRequests: { 'approve-publish-1': approvalRequest(chain) },
        };
      } else if (method === 'tasks/update') {
        transcript.push(`tasks/update ${Object.keys(params.inputResponses).join(',')}`);
      } else if (method === 'tasks/cancel') {
        transcript.push(`tasks/cancel ${params.taskId}`);
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, transcript, server };
}

async function runOnce(): Promise<string[]> {
  const { url, transcript, server } = await stuckServer();
  try {
    const rpc = createRpc({ url });
    const answers: string[] = [];
    await assert.rejects(
      callTool(
        rpc,
        'start_mining',
        { difficulty: 30 },
        {
          stuckLimit: 3,
          answer: async (key) => {
            answers.push(key);
            return { action: 'accept', content: { approve: true } };
          },
        },
      ),
      (err: unknown) => {
        assert.ok(err instanceof StuckPollError);
        assert.match(err.message, /task task-1 asked for input 3 times in a row without a new request/);
        return true;
      },
    );
    assert.deepEqual(answers, ['approve-publish-1'], 'the person is asked once');
    return transcript;
  } finally {
    server.close();
  }
}

describe('stuck-poll guard', () => {
  it('answers once, polls three more times without a new key, cancels, then fails — the same way twice', async () => {
    const expected = [
      'tools/call start_mining',
      'tasks/get task-1',
      'tasks/update approve-publish-1',
      'tasks/get task-1',
      'tasks/get task-1',
      'tasks/get task-1',
      'tasks/cancel task-1',
    ];
    assert.deepEqual(await runOnce(), expected);
    assert.deepEqual(await runOnce(), expected);
  });
});
