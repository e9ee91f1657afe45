import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootId, hasEnded, hasProcStat, processStat } from './process-stat.ts';

/**
 * One process at a time per embedded data directory. PGlite does not check:
 * it writes a postmaster.pid with a fixed fake pid, so two processes would
 * open (and corrupt) the same folder. The lock file holds the owner's pid,
 * and on Linux its start time and the boot id (process-stat.ts); a lock whose
 * process no longer runs is stale and taken over. A pid alone is not enough:
 * a killed process not yet reaped (a zombie) still answers kill(pid, 0), and
 * after a reboot or a container restart the same pid is soon another process.
 * So the owner counts as alive only if that pid runs, is not a zombie, and
 * started at the recorded time in this boot. Not guarded: two hosts sharing
 * the folder over a network file system.
 */

export const DATA_DIR_LOCK_FILE = 'kernel-embedded.lock';

const heldInThisProcess = new Set<string>();

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = join(dataDir, DATA_DIR_LOCK_FILE);
  if (heldInThisProcess.has(path)) {
    throw new Error(`Embedded PostgreSQL data directory ${dataDir} is already open in this process`);
  }
  const content = `${JSON.stringify(thisProcess())}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, content, { flag: 'wx' });
      heldInThisProcess.add(path);
      return { path, release: () => releaseLock(path) };
    } catch (error) {
      if (!isErrorCode(error, 'EEXIST')) throw error;
    }
    const owner = readOwner(path);
    if (owner === null && isRecent(path)) {
      // Another process has just created the file and not yet written its pid.
      throw new Error(`Embedded PostgreSQL data directory ${dataDir} is being opened by another process`);
    }
    if (owner !== null && owner.pid !== process.pid && isOwnerAlive(owner)) {
      throw new Error(
        `Embedded PostgreSQL data directory ${dataDir} is in use by process ${owner.pid} ` +
          `(lock file ${path}); stop that process, or delete the lock file if it is not a kernel`,
      );
    }
    // Stale: its process is gone, or it carries our own pid from an earlier
    // run (a container restarted as pid 1) while this process holds nothing.
    removeIfPresent(path);
  }
  throw new Error(`Could not take the lock file ${path}: another process keeps creating it`);
}

/** What the lock file says of its owner; `startTicks` and `bootId` only where /proc exists (and not in locks written before them). */
export interface LockOwner {
  pid: number;
  startedAt?: string;
  startTicks?: number;
  bootId?: string;
}

function thisProcess(): LockOwner {
  const stat = processStat('self');
  const boot = bootId();
  return { pid: process.pid, startedAt: new Date().toISOString(), ...(stat ? { startTicks: stat.startTicks } : {}), ...(boot ? { bootId: boot } : {}) };
}

function releaseLock(path: string): void {
  if (!heldInThisProcess.delete(path)) return;
  if (readOwner(path)?.pid === process.pid) removeIfPresent(path);
}

function readOwner(path: string): LockOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const pid = parsed.pid;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return null;
    return {
      pid,
      ...(typeof parsed.startTicks === 'number' ? { startTicks: parsed.startTicks } : {}),
      ...(typeof parsed.bootId === 'string' ? { bootId: parsed.bootId } : {}),
    };
  } catch {
    return null; // unreadable or half-written
  }
}

/**
 * Whether the lock's owner still runs. With /proc: its pid runs, is no zombie, and (when the
 * lock recorded them) in this boot, since the recorded start. Without /proc: its pid exists.
 */
export function isOwnerAlive(owner: LockOwner): boolean {
  if (!hasProcStat()) return isProcessAlive(owner.pid);
  const stat = processStat(owner.pid);
  // no entry: gone, unless /proc hides other users' processes (hidepid) and the pid exists
  if (stat === null) return isProcessAlive(owner.pid) && isOtherUsers(owner.pid);
  if (hasEnded(stat)) return false;
  if (owner.bootId !== undefined && owner.bootId !== bootId()) return false;
  return owner.startTicks === undefined || owner.startTicks === stat.startTicks;
}

const HALF_WRITTEN_GRACE_MS = 10_000;

function isRecent(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < HALF_WRITTEN_GRACE_MS;
  } catch {
    return false;
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrorCode(error, 'EPERM'); // exists, owned by another user
  }
}

function isOtherUsers(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return isErrorCode(error, 'EPERM');
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isErrorCode(error, 'ENOENT')) throw error;
  }
}

function isErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
