import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * Linux `perf` sampling of one process by CPU time (user and kernel space). The process must run
 * with --perf-basic-prof so JIT frames have names (it writes /tmp/perf-<pid>.map, removed by
 * `removePerfMap`). Unlike V8's --cpu-prof, time preempted inside a syscall is not counted.
 */
export interface PerfRecording {
  child: ChildProcess;
  file: string;
}

export function perfAvailable(): boolean {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function startPerf(pid: number, file: string): PerfRecording {
  const child = spawn('perf', ['record', '-F', '999', '-o', file, '-p', String(pid)], { stdio: 'ignore' });
  return { child, file };
}

export async function stopPerf(rec: PerfRecording): Promise<void> {
  if (rec.child.exitCode !== null) return;
  const exited = new Promise((resolve) => rec.child.once('exit', resolve));
  rec.child.kill('SIGINT');
  await exited;
}

export interface PerfShare {
  percent: number;
  where: string;
  symbol: string;
}

/** Top symbols by self CPU time: "JS:*name file:line" for JIT code, [k] for the Linux kernel. */
export function perfTop(file: string, sortBy: 'dso' | 'sym', limit: number): PerfShare[] {
  const out = execFileSync('perf', ['report', '-i', file, '--no-children', '-g', 'none', '--sort', sortBy === 'dso' ? 'dso' : 'dso,sym', '--stdio'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const rows: PerfShare[] = [];
  for (const line of out.split('\n')) {
    const m = /^\s+([\d.]+)%\s+(\[JIT\] tid \d+|\S+)\s*(?:\[[.k]\]\s+(.*))?$/.exec(line);
    if (!m) continue;
    rows.push({ percent: Number(m[1]), where: m[2], symbol: (m[3] ?? '').trim() });
    if (rows.length >= limit) break;
  }
  return rows;
}

export function removePerfMap(pid: number): void {
  rmSync(`/tmp/perf-${pid}.map`, { force: true });
}

export function printPerf(file: string, cpuUsPerReq?: number): void {
  const scale = (p: number) => (cpuUsPerReq ? `  ~${((p / 100) * cpuUsPerReq).toFixed(1)} us/req` : '');
  const line = (r: PerfShare) => `  ${r.percent.toFixed(2).padStart(6)}%${scale(r.percent)}  ${r.symbol || r.where}`;
  console.log('\nperf: CPU time of the kernel process during its load windows, by binary ([JIT] = optimised JS, node = V8 builtins, interpreter and C++):');
  for (const r of perfTop(file, 'dso', 6)) console.log(line({ ...r, symbol: '' }));
  const symbols = perfTop(file, 'sym', 400);
  console.log('top JIT-compiled JS functions (self):');
  for (const r of symbols.filter((s) => s.symbol.startsWith('JS:')).slice(0, 20)) console.log(line(r));
  console.log('top symbols inside the node binary (self: builtins such as Promise and Map code, the interpreter, GC, C++):');
  for (const r of symbols.filter((s) => s.where === 'node').slice(0, 20)) console.log(line(r));
  console.log('top Linux kernel symbols (self):');
  for (const r of symbols.filter((s) => s.where === '[kernel.kallsyms]').slice(0, 8)) console.log(line(r));
}
