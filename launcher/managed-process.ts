// A child process run by `npm start`: its own process group (a Ctrl-C in the terminal reaches only
// the parent, which decides the stopping order), output forwarded line by line with a prefix, and a
// stop that escalates from SIGTERM to SIGKILL after a grace period.
import { type ChildProcess, spawn } from 'node:child_process';
import { linePrefixer } from './line-prefixer.ts';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcessOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Prefix put before every line of output. */
  prefix: string;
  /** Where prefixed lines go. */
  emit: (line: string) => void;
  /** Called with every complete line of output (unprefixed), e.g. to notice readiness. */
  onLine?: (line: string) => void;
}

export class ManagedProcess {
  readonly exited: Promise<ExitInfo>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    // A spawn that fails (missing executable) emits 'error' and may never emit 'exit'.
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', () => {
        if (child.pid === undefined) resolve({ code: 127, signal: null });
      });
    });
  }

  static spawn(options: ManagedProcessOptions): ManagedProcess {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const managed = new ManagedProcess(options.name, child);
    for (const stream of [child.stdout, child.stderr]) {
      const prefixed = linePrefixer(options.prefix, options.emit);
      const plain = linePrefixer('', (line) => options.onLine?.(line));
      stream?.on('data', (chunk: Buffer) => {
        prefixed.write(chunk);
        plain.write(chunk);
      });
      stream?.on('end', () => {
        prefixed.flush();
        plain.flush();
      });
    }
    child.on('error', (err) => options.emit(`${options.prefix}spawn failed: ${err.message}`));
    return managed;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` to the child's whole process group; false if it is already gone. */
  signal(signal: NodeJS.Signals): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once it has exited. Whatever
   * it left in its process group is killed too, so nothing outlives it.
   */
  async stop(graceMs: number): Promise<ExitInfo & { killed: boolean }> {
    let killed = false;
    if (this.running) this.signal('SIGTERM');
    const timer = setTimeout(() => {
      killed = this.signal('SIGKILL');
    }, graceMs);
    const info = await this.exited;
    clearTimeout(timer);
    this.signal('SIGKILL');
    return { ...info, killed };
  }
}
