import { readdirSync, readFileSync } from 'node:fs';
import { processCpuMs } from './cpu-usage.ts';

/**
 * Samples, every `everyMs`, the CPU ms a process has used and the CPU ms of the PostgreSQL
 * backends serving one database (found by their process title, `postgres: ... <db> ...`), so a
 * phase's CPU can be read afterwards for any window inside it. A backend that exits between two
 * samples loses at most one interval of its CPU.
 */
export interface CpuSample {
  at: number;
  process: number;
  /** the process's main thread (its event loop), without worker threads */
  main: number;
  postgres: number;
}

export interface CpuSampler {
  stop(): CpuSample[];
}

function backendCpuMs(db: string, seen: Map<number, number>): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const title = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.includes(` ${db} `)) seen.set(Number(name), processCpuMs(Number(name)));
    } catch {
      // exited meanwhile
    }
  }
  let sum = 0;
  for (const ms of seen.values()) sum += ms;
  return sum;
}

export function sampleCpu(pid: number, db: string, everyMs = 200): CpuSampler {
  const seen = new Map<number, number>();
  const samples: CpuSample[] = [];
  const take = () => samples.push({ at: performance.now(), process: processCpuMs(pid), main: processCpuMs(pid, pid), postgres: backendCpuMs(db, seen) });
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** CPU ms used between two instants, interpolated between the samples around them. */
export function cpuBetween(samples: CpuSample[], from: number, to: number, which: 'process' | 'main' | 'postgres'): number {
  const at = (t: number) => {
    const i = samples.findIndex((s) => s.at >= t);
    if (i <= 0) return samples[Math.max(0, i === -1 ? samples.length - 1 : 0)][which];
    const [a, b] = [samples[i - 1], samples[i]];
    return a[which] + ((b[which] - a[which]) * (t - a.at)) / (b.at - a.at);
  };
  return at(to) - at(from);
}
