// What the numbers were measured on: date, cores, CPU model, Node.js version.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

export interface Machine {
  date: string;
  nproc: number;
  cpuModel: string;
  node: string;
  /** 1-minute load average when the run began: above the core count, other work shared the cores. */
  loadAverage?: number;
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    return line?.split(':')[1]?.trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

export function describeMachine(): Machine {
  return {
    date: new Date().toISOString(),
    nproc: availableParallelism(),
    cpuModel: cpuModel(),
    node: process.version,
    loadAverage: loadavg()[0],
  };
}

export function machineLine(m: Machine): string {
  const load = m.loadAverage === undefined ? '' : `; load average ${m.loadAverage.toFixed(2)} at the start`;
  return `${m.date}; ${m.nproc} cores (nproc), CPU "${m.cpuModel}"; Node.js ${m.node}${load}`;
}
