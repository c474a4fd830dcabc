// Samples a process's resident memory from /proc/<pid>/status: VmRSS every `intervalMs`, and the
// kernel's own high-water mark VmHWM, which also catches peaks between samples.
import { readFileSync } from 'node:fs';

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) : undefined;
  } catch {
    return undefined;
  }
}

export interface RssReport {
  startMb: number;
  peakSampledMb: number;
  highWaterMb: number;
  endMb: number;
}

export class RssSampler {
  private readonly startKb: number;
  private peakKb: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 50,
  ) {
    this.startKb = statusKb(pid, 'VmRSS') ?? 0;
    this.peakKb = this.startKb;
    this.timer = setInterval(() => {
      this.peakKb = Math.max(this.peakKb, statusKb(pid, 'VmRSS') ?? 0);
    }, intervalMs);
  }

  stop(): RssReport {
    clearInterval(this.timer);
    const endKb = statusKb(this.pid, 'VmRSS') ?? 0;
    this.peakKb = Math.max(this.peakKb, endKb);
    const mb = (kb: number) => kb / 1024;
    return {
      startMb: mb(this.startKb),
      peakSampledMb: mb(this.peakKb),
      highWaterMb: mb(statusKb(this.pid, 'VmHWM') ?? 0),
      endMb: mb(endKb),
    };
  }
}
