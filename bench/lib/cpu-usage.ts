import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time a process has used (user + system, all threads), from /proc/<pid>/stat. Unlike a
 * V8 profile, which samples wall-clock time (a server preempted inside write() shows as busy
 * there), this counts only time on a CPU, so "CPU per request" is the steadiest figure on a
 * shared machine.
 */
let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * User and system (kernel: syscalls, the TCP stack, wake-ups) CPU milliseconds of a process, or
 * with `tid` of one of its threads (the main thread's id is the pid: its event loop's CPU).
 */
export function processCpuSplitMs(pid: number, tid?: number): { user: number; system: number } {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  // after "pid (comm) ": state is field 3; utime and stime are fields 14 and 15
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(fields[11]) * 1000) / clockTicks(), system: (Number(fields[12]) * 1000) / clockTicks() };
}

export function processCpuMs(pid: number, tid?: number): number {
  const { user, system } = processCpuSplitMs(pid, tid);
  return user + system;
}

/** CPU ms this process (the load generator) has used. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
