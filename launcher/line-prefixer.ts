// Turns a child's output chunks into whole lines, each prefixed with the process name, so the
// logs of several processes stay readable on one terminal.

export interface LinePrefixer {
  /** Feeds a chunk; complete lines go out at once, a trailing partial line waits for its end. */
  write(chunk: Buffer | string): void;
  /** Emits what is left of a partial line (when the stream ends). */
  flush(): void;
}

export function linePrefixer(prefix: string, emit: (line: string) => void): LinePrefixer {
  let pending = '';
  return {
    write(chunk) {
      pending += chunk.toString();
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) emit(`${prefix}${line}`);
    },
    flush() {
      if (pending) emit(`${prefix}${pending}`);
      pending = '';
    },
  };
}

/** `name` padded to `width` and followed by a bar: "worker   | ". */
export function processLabel(name: string, width: number): string {
  return `${name.padEnd(width)} | `;
}
