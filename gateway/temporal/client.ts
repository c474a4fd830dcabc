// The gateway's Temporal client: how it is made (lazy connection, the payload codec, the metrics and
// tracing interceptors) and how every call goes through it: under a hard deadline, so an unreachable
// Temporal is a clear error within seconds, never a hang, and timed into the latency histogram.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import { importOptionalPeer } from '../../common/optional-peer.ts';
import type { EncryptionCodec } from '../../common/payload-codec.ts';
import type { TemporalEnv } from '../../common/temporal-env.ts';
import { type TemporalOperation, temporalSeconds } from '../shared/metrics.ts';
import { tracing } from '../shared/tracing.ts';
import { isTemporalUnavailable, TemporalDeadlineError, TemporalUnreachableError } from './errors.ts';
import { Reachability } from './reachability.ts';

/**
 * Runs one Temporal call and records its latency under `operation`, with outcome `ok`, `error`, or
 * `aborted` when `abort` (the gateway's own signal, e.g. the wait budget) ended it.
 */
export async function timed<T>(
  operation: TemporalOperation,
  call: () => Promise<T>,
  abort?: AbortSignal,
): Promise<T> {
  const end = temporalSeconds.startTimer({ operation });
  try {
    const value = await call();
    end({ outcome: 'ok' });
    return value;
  } catch (err) {
    end({ outcome: abort?.aborted ? 'aborted' : 'error' });
    throw err;
  }
}

/** Times every Temporal call the client makes into the latency histogram, by operation. */
function metricsInterceptor(): WorkflowClientInterceptor {
  return {
    startWithDetails: (input, next) => timed('start', () => next(input)),
    describe: (input, next) => timed('describe', () => next(input)),
    query: (input, next) => timed('query', () => next(input)),
    signal: (input, next) => timed('signal', () => next(input)),
    cancel: (input, next) => timed('cancel', () => next(input)),
    terminate: (input, next) => timed('terminate', () => next(input)),
  };
}

/** Temporal's OpenTelemetry client interceptor: an optional peer of the package, loaded with tracing on. */
async function tracingInterceptor(): Promise<WorkflowClientInterceptor> {
  const { OpenTelemetryWorkflowClientInterceptor } = await importOptionalPeer(
    '@temporalio/interceptors-opentelemetry',
    'Tracing (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER)',
    () => import('@temporalio/interceptors-opentelemetry/lib/client/index.js'),
  );
  return new OpenTelemetryWorkflowClientInterceptor();
}

/**
 * The gateway's Temporal client. The connection is lazy, so the gateway starts (and /readyz says
 * 503) while Temporal is down, and gets back in touch by itself when Temporal returns. With a
 * codec, every payload it writes (arguments, memo, signals, queries) is encrypted and every one it
 * reads is decrypted; search attributes are not payloads and stay readable.
 */
export async function createTemporalClient(
  temporal: TemporalEnv,
  connectTimeoutMs: number,
  codec?: EncryptionCodec,
): Promise<Client> {
  const { address, tls, apiKey, metadata } = temporal.connectionOptions;
  const connection = Connection.lazy({
    address,
    ...(tls === undefined || tls === null ? {} : { tls }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(metadata === undefined ? {} : { metadata }),
    connectTimeout: connectTimeoutMs,
  });
  return new Client({
    connection,
    namespace: temporal.namespace,
    ...(codec ? { dataConverter: { payloadCodecs: [codec] } } : {}),
    // With tracing on, every client call is a span under the request's, and a start carries the
    // trace context to the workflow in its headers.
    interceptors: {
      workflow: [metricsInterceptor(), ...(tracing ? [await tracingInterceptor()] : [])],
    },
    // A progress query on a closed run is refused by Temporal at once instead of replayed on a worker.
    workflow: { queryRejectCondition: 'NOT_OPEN' },
  });
}

/**
 * Runs `run` until `deadline` (epoch ms); past it, rejects with TemporalDeadlineError and aborts it.
 * Sooner when `reachability` finds Temporal refusing connections while it runs.
 */
function withHardDeadline<T>(
  deadline: number,
  run: (signal: AbortSignal) => Promise<T>,
  reachability: Reachability,
): Promise<T> {
  const remaining = Math.max(0, deadline - Date.now());
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new TemporalDeadlineError(remaining);
      reject(error);
      abort.abort(error);
    }, remaining);
  });
  const call = run(abort.signal);
  call.catch(() => {}); // its failure after the bound is the abort above: nobody to tell
  const watched = reachability.watch(call, (reason) => abort.abort(reason));
  return Promise.race([watched, late]).finally(() => clearTimeout(timer));
}

export interface CallOptions {
  namespace: string;
  /** Deadline of start, describe, result fetch, signal and cancel calls. */
  callTimeoutMs: number;
  /** Deadline of the progress query (a worker must answer it). */
  queryTimeoutMs: number;
}

/**
 * The client with the deadline every call runs under, and what it knows of Temporal being down
 * (reachability.ts): fed by every call, the readiness pings among them, so a call to a Temporal
 * known down answers at once, and one to a slow Temporal still gets the whole deadline.
 */
export class TemporalCalls {
  /** A deadline shared by several calls (a start's checks and the start itself). */
  private readonly sharedDeadline = new AsyncLocalStorage<number>();
  private readonly reachability: Reachability;

  constructor(
    readonly client: Client,
    readonly options: CallOptions,
  ) {
    const { address } = (client.connection as { options?: { address?: unknown } } | undefined)?.options ?? {};
    this.reachability = new Reachability(typeof address === 'string' ? address : undefined);
  }

  /**
   * Runs `fn` under the call deadline (or the shared one, when it is sooner); refused with
   * TemporalUnreachableError while Temporal is known down.
   */
  async call<T>(fn: () => Promise<T>, timeoutMs = this.options.callTimeoutMs): Promise<T> {
    await this.reachability.before();
    const own = Date.now() + timeoutMs;
    const shared = this.sharedDeadline.getStore();
    const deadline = shared === undefined ? own : Math.min(own, shared);
    try {
      const value = await withHardDeadline(
        deadline,
        (signal) => this.client.withAbortSignal(signal, () => this.client.withDeadline(deadline, fn)),
        this.reachability,
      );
      this.reachability.succeeded();
      return value;
    } catch (err) {
      // Any answer of Temporal's (not found, say) is one from a Temporal that is up.
      if (!isTemporalUnavailable(err)) this.reachability.succeeded();
      else if (!(err instanceof TemporalUnreachableError)) this.reachability.failed();
      throw err;
    }
  }

  /** Runs `fn` with every call inside it sharing one deadline, `timeoutMs` from now. */
  sharingDeadline<T>(timeoutMs: number, fn: () => Promise<T>): Promise<T> {
    return this.sharedDeadline.run(Date.now() + timeoutMs, fn);
  }

  /** Runs `fn` outside any shared deadline (its calls get their own). */
  ownDeadline<T>(fn: () => Promise<T>): Promise<T> {
    return this.sharedDeadline.exit(fn);
  }

  /** Resolves when Temporal answers within `timeoutMs`; rejects otherwise. */
  async ping(timeoutMs: number): Promise<void> {
    await this.call(
      () => this.client.workflowService.describeNamespace({ namespace: this.options.namespace }),
      timeoutMs,
    );
  }
}
