import { readFileSync } from 'node:fs';

/**
 * What Linux says of a process in /proc/<pid>/stat: its state and its start time (clock ticks
 * after boot). A pid names a process only together with its start time: after the process
 * ends, the pid may be given to another one (at once in a new container, where pids start
 * again at 1; after a reboot, or once the pid counter wraps), which starts later. The boot id
 * tells start times of different boots apart. Elsewhere (no /proc) both answers are null.
 */
export interface ProcessStat {
  /** R, S, D, T, ...; Z (zombie: ended, not yet reaped) and X (dead) mean it has ended */
  state: string;
  startTicks: number;
}

export function processStat(pid: number | 'self'): ProcessStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // the command name (2nd field) is in parentheses and may itself hold spaces and parentheses
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const startTicks = Number(fields[19]);
  return fields[0] && Number.isSafeInteger(startTicks) ? { state: fields[0], startTicks } : null;
}

/** This boot of the machine (Linux), or null. */
export function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Whether a process that has a /proc entry has ended all the same (a zombie). */
export function hasEnded(stat: ProcessStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

/** Whether /proc can be read at all here (Linux). */
export function hasProcStat(): boolean {
  return processStat('self') !== null;
}
