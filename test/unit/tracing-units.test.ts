// The pure pieces of tracing: when the environment turns it on, which trace context a request
// names, what a request span says about the request, what a workflow span may carry, and the
// settings `npm start` gives its children beside a local Jaeger. No process, no exporter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { traceDestination, tracingWanted } from '../../common/tracing.ts';
import { readMcpBody } from '../../gateway/http/body.ts';
import { requestSpanSubject } from '../../gateway/http/request-tracing.ts';
import { Catalog, catalogTool } from '../../gateway/mcp/catalog.ts';
import { readMessage } from '../../gateway/mcp/methods.ts';
import { traceCarrierOf, tracing } from '../../gateway/shared/tracing.ts';
import { jaegerTraceEnv, startConfig } from '../../launcher/start-config.ts';
import { spanFactsOf } from '../../worker/tracing.ts';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('tracingWanted: off unless an OTEL_* setting asks', () => {
  it('is off with nothing set, and with blank values', () => {
    assert.equal(tracingWanted({}), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ', OTEL_TRACES_EXPORTER: '' }), false);
  });
  it('is on with an OTLP endpoint, a traces endpoint, or a traces exporter', () => {
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }), true);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
    assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
    assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'console' }), true);
  });
  it('is off with the exporter "none" or the SDK disabled, whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' };
    assert.equal(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }), false);
    assert.equal(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }), false);
  });
  it('names where spans go without any credential of the endpoint', () => {
    assert.equal(
      traceDestination({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:secret@collector.example:4318/?key=k' }),
      'OTLP/HTTP at https://collector.example:4318',
    );
    assert.equal(traceDestination({ OTEL_TRACES_EXPORTER: 'console' }), 'stdout');
    assert.equal(traceDestination({}), 'OTLP/HTTP at http://localhost:4318');
  });
  it('leaves the gateway helpers off in a process that did not start the SDK', () => {
    assert.equal(tracing, false);
  });
});

describe('traceCarrierOf: a W3C trace context from _meta or headers', () => {
  it('takes a well-formed traceparent and its tracestate', () => {
    assert.deepEqual(traceCarrierOf({ traceparent: PARENT, tracestate: 'a=1' }), {
      traceparent: PARENT,
      tracestate: 'a=1',
    });
  });
  it('refuses what is not a traceparent, and drops an oversized tracestate', () => {
    assert.equal(traceCarrierOf({ traceparent: '00-short-01' }), undefined);
    assert.equal(traceCarrierOf({ traceparent: 42 }), undefined);
    assert.equal(traceCarrierOf(undefined), undefined);
    assert.deepEqual(traceCarrierOf({ traceparent: PARENT, tracestate: 'x'.repeat(600) }), {
      traceparent: PARENT,
    });
  });
});

describe('requestSpanSubject: what a request span says', () => {
  const mining = catalogTool(
    { name: 'start_mining', description: 'Mines.', workflow: 'mine', inputSchema: { type: 'object' } },
    { taskQueue: 'q', waitBudgetMs: 1_000 },
  );
  const catalog = new Catalog([mining]);
  const read = (message: unknown) =>
    readMcpBody(message, (envelope, raw) => readMessage(catalog, envelope, raw));
  const body = (method: string, params: Record<string, unknown>) =>
    read({ jsonrpc: '2.0', id: 7, method, params });

  it('names a tools/call by its tool, with the caller’s _meta trace context as parent', () => {
    const subject = requestSpanSubject(
      body('tools/call', {
        name: 'start_mining',
        arguments: { difficulty: 10 },
        _meta: { traceparent: PARENT, 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
      }),
      { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' },
      'alice',
    );
    assert.equal(subject.method, 'tools/call');
    assert.equal(subject.target, 'start_mining');
    assert.deepEqual(subject.parent, { traceparent: PARENT });
    assert.deepEqual(subject.attributes, {
      'gen_ai.tool.name': 'start_mining',
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': '7',
    });
    assert.equal(JSON.stringify(subject.attributes).includes('difficulty'), false, 'no arguments');
  });
  it('names a tasks/* by its task, and takes the HTTP traceparent when _meta has none', () => {
    const subject = requestSpanSubject(
      body('tasks/get', { taskId: 'mine-1' }),
      { traceparent: PARENT },
      'bob',
    );
    assert.equal(subject.target, 'mine-1');
    assert.equal(subject.attributes['mcp.task.id'], 'mine-1');
    assert.deepEqual(subject.parent, { traceparent: PARENT });
  });
  it('takes the run a companion names as its task, and copes with a body that is no request', () => {
    const poll = requestSpanSubject(
      body('tools/call', { name: 'get_mining_result', arguments: { workflow_id: 'mine-2' } }),
      {},
      'carol',
    );
    assert.equal(poll.attributes['mcp.task.id'], 'mine-2');
    assert.equal(poll.parent, undefined);
    assert.equal(requestSpanSubject(read('garbage'), {}, 'x').method, 'mcp');
  });
});

describe('spanFactsOf: a workflow span carries run facts, not the memo', () => {
  it('keeps ids, type, queue, namespace and attempt only', () => {
    const info = {
      workflowId: 'mine-3',
      runId: 'r-1',
      workflowType: 'mineChain',
      taskQueue: 'q',
      namespace: 'default',
      attempt: 1,
      memo: { arguments: { secret: 'do not copy' } },
      searchAttributes: {},
    } as unknown as Parameters<typeof spanFactsOf>[0];
    const facts = spanFactsOf(info);
    assert.deepEqual(Object.keys(facts).sort(), [
      'temporalAttempt',
      'temporalNamespace',
      'temporalRunId',
      'temporalTaskQueue',
      'temporalWorkflowId',
      'temporalWorkflowType',
    ]);
    assert.equal(JSON.stringify(facts).includes('do not copy'), false);
  });
});

describe('npm start beside a local Jaeger', () => {
  it('runs Jaeger only with MCP_START_JAEGER=true, on the usual ports unless told', () => {
    assert.equal(startConfig({}).jaeger, undefined);
    assert.deepEqual(startConfig({ MCP_START_JAEGER: 'true' }).jaeger, {
      otlpHttpPort: 4318,
      uiPort: 16686,
      queryGrpcPort: 16685,
    });
    assert.equal(startConfig({ MCP_START_JAEGER: 'true', JAEGER_UI_PORT: '9000' }).jaeger?.uiPort, 9000);
    assert.throws(() => startConfig({ MCP_START_JAEGER: 'yes' }), /MCP_START_JAEGER/);
  });
  it('points the children at it unless another collector is named', () => {
    assert.deepEqual(jaegerTraceEnv({}, 'http://127.0.0.1:4318'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    });
    assert.deepEqual(jaegerTraceEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' }, 'http://x'), {});
  });
});
