// Jaeger all-in-one (v1.76.0, a Jaeger v2 binary) as a local trace backend: for `npm start` with
// MCP_START_JAEGER=true and for the tracing test. It takes OTLP/HTTP, keeps spans in memory and
// serves its query API (/api/traces, /api/services) and UI on one HTTP port. The binary comes from
// scripts/install-jaeger.sh (a pinned build with Go, cached in Go's bin folder).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '../common/poll.ts';

const INSTALL_JAEGER = fileURLToPath(new URL('../scripts/install-jaeger.sh', import.meta.url));
const JAEGER_CONFIG = fileURLToPath(new URL('./jaeger.yaml', import.meta.url));

/** The Jaeger binary's path (JAEGER_PATH, PATH, the Go bin folder), built first when missing. */
export function ensureJaeger(onProgress: (chunk: string) => void = () => {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('bash', [INSTALL_JAEGER], { maxBuffer: 1024 * 1024 }, (err, stdout) => {
      if (err) return reject(new Error(`scripts/install-jaeger.sh failed: ${err.message}`));
      const path = stdout.trim().split('\n').at(-1);
      if (!path) return reject(new Error('scripts/install-jaeger.sh printed no path'));
      resolve(path);
    });
    child.stderr?.on('data', (chunk: Buffer) => onProgress(chunk.toString()));
  });
}

export interface JaegerOptions {
  binary: string;
  host?: string;
  /** OTLP/HTTP receiver port (4318 by convention). */
  otlpHttpPort: number;
  /** Query API and UI port (16686 by convention). */
  uiPort: number;
  /** Query gRPC port (16685 by convention); nothing here uses it, but it must not clash. */
  queryGrpcPort: number;
  /** A folder of built Jaeger UI assets to serve instead of the binary's own (default: JAEGER_UI_ASSETS). */
  uiAssets?: string;
  onOutput?: (chunk: string) => void;
  readyTimeoutMs?: number;
}

export interface Jaeger {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT: http://host:otlpHttpPort */
  otlpEndpoint: string;
  /** The UI and the query API: http://host:uiPort */
  uiUrl: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export async function startJaeger(options: JaegerOptions): Promise<Jaeger> {
  const host = options.host ?? '127.0.0.1';
  let output = '';
  const child = spawn(options.binary, ['--config', `file:${JAEGER_CONFIG}`], {
    env: {
      ...process.env,
      JAEGER_LISTEN_HOST: host,
      JAEGER_OTLP_HTTP_PORT: String(options.otlpHttpPort),
      JAEGER_UI_PORT: String(options.uiPort),
      JAEGER_QUERY_GRPC_PORT: String(options.queryGrpcPort),
      JAEGER_UI_ASSETS: options.uiAssets ?? process.env.JAEGER_UI_ASSETS ?? '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    options.onOutput?.(chunk.toString());
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const gone = new AbortController();
  exited.then(() => gone.abort(new Error(`jaeger exited before it was ready:\n${output.slice(-2000)}`)));
  const uiUrl = `http://${host}:${options.uiPort}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    // Ready once the query API answers (the receiver starts before it).
    await pollUntil(
      async () => {
        const response = await fetch(`${uiUrl}/api/services`, { signal: AbortSignal.timeout(1_000) });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return true;
      },
      { timeoutMs: options.readyTimeoutMs ?? 30_000, intervalMs: 100, signal: gone.signal },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { otlpEndpoint: `http://${host}:${options.otlpHttpPort}`, uiUrl, child, output: () => output, stop };
}
