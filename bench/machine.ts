// What the numbers were measured on: date, cores, CPU model, Node.js version.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export interface Machine {
  date: string;
  nproc: number;
  cpuModel: string;
  node: string;
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
  };
}

export function machineLine(m: Machine): string {
  return `${m.date}; ${m.nproc} cores (nproc), CPU "${m.cpuModel}"; Node.js ${m.node}`;
}
