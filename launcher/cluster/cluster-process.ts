// One process of the cluster (PostgreSQL, a Temporal service, the Web UI, the proxy, a gateway, a
// worker): spawned in its own process group, its output appended to its own log file (and, if
// asked, echoed with a prefix), ready once its probe passes, and able to be killed and started
// again, which is what the fault tests do to it.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '../../common/poll.ts';
import { processLabel } from '../line-prefixer.ts';
import { type ExitInfo, ManagedProcess } from '../managed-process.ts';

export interface ClusterProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Resolves once the process serves; retried by the caller's deadline. */
  ready: (output: () => string) => Promise<boolean>;
  readyTimeoutMs?: number;
  /** How long a stop waits after its signal before SIGKILL. */
  stopGraceMs?: number;
  /**
   * Sent to the process alone (not its group) to stop it, instead of SIGTERM to the group:
   * PostgreSQL's postmaster takes SIGINT as "fast shutdown" and stops its backends itself.
   */
  stopSignal?: NodeJS.Signals;
}

export interface ClusterProcessOptions {
  logDir: string;
  /** Echo every line, prefixed with the process name (npm run cluster on a terminal). */
  echo?: (line: string) => void;
  labelWidth?: number;
}

const POLL_MS = 200;

export class ClusterProcess {
  private process: ManagedProcess | undefined;
  private recent = '';
  /** Every pid this process had, oldest first. */
  readonly pids: number[] = [];

  constructor(
    readonly spec: ClusterProcessSpec,
    private readonly options: ClusterProcessOptions,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  get running(): boolean {
    return this.process?.running ?? false;
  }

  get logFile(): string {
    return join(this.options.logDir, `${this.spec.name}.log`);
  }

  /** Output since the last start (the tail kept for error messages and readiness checks). */
  output(): string {
    return this.recent;
  }

  /** Starts the process and waits until its probe passes; throws (and kills it) if it cannot. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.recent = '';
    const prefix = processLabel(this.name, this.options.labelWidth ?? 10);
    const child = ManagedProcess.spawn({
      name: this.name,
      command: this.spec.command,
      args: this.spec.args,
      cwd: this.spec.cwd,
      env: this.spec.env ?? process.env,
      prefix,
      emit: (line) => this.options.echo?.(line),
      onLine: (line) => {
        appendFileSync(this.logFile, `${line}\n`);
        this.recent = `${this.recent}${line}\n`.slice(-20_000);
      },
    });
    this.process = child;
    if (child.pid !== undefined) this.pids.push(child.pid);
    appendFileSync(
      this.logFile,
      `--- ${new Date().toISOString()} started ${this.spec.command} (pid ${child.pid})\n`,
    );
    const readyTimeoutMs = this.spec.readyTimeoutMs ?? 60_000;
    const exited = new AbortController();
    child.exited.then((how) =>
      exited.abort(
        new Error(
          `${this.name} exited (${describe(how)}) before it was ready:\n${this.recent.slice(-3_000)}`,
        ),
      ),
    );
    try {
      await pollUntil(async () => ((await this.spec.ready(() => this.recent)) ? true : undefined), {
        timeoutMs: readyTimeoutMs,
        intervalMs: POLL_MS,
        signal: exited.signal,
        timeoutError: (last) =>
          new Error(
            `${this.name} was not ready within ${readyTimeoutMs} ms${last ? ` (${(last as Error).message})` : ''}:\n${this.recent.slice(-3_000)}`,
          ),
      });
    } catch (err) {
      if (!exited.signal.aborted) await child.stop(1_000);
      throw err;
    }
  }

  /** Sends `signal` to the process group and waits for the process to exit (a crash: no grace). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<ExitInfo | undefined> {
    const child = this.process;
    if (!child?.running) return undefined;
    child.signal(signal);
    return child.exited;
  }

  /** A clean stop (SIGTERM, or the spec's stop signal), SIGKILL after the grace period. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child?.running) return;
    const { stopSignal, stopGraceMs = 10_000 } = this.spec;
    if (!stopSignal || child.pid === undefined) {
      await child.stop(stopGraceMs);
      return;
    }
    try {
      process.kill(child.pid, stopSignal);
    } catch {
      // already gone
    }
    const timer = setTimeout(() => child.signal('SIGKILL'), stopGraceMs);
    await child.exited;
    clearTimeout(timer);
    child.signal('SIGKILL'); // whatever it left in its group
  }

  /** Resolves when the current run exits. */
  get exited(): Promise<ExitInfo> | undefined {
    return this.process?.exited;
  }
}

function describe({ code, signal }: ExitInfo): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}
