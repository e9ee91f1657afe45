import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process at a time per embedded data directory. PGlite does not check:
 * it writes a postmaster.pid with a fixed fake pid, so two processes would
 * open (and corrupt) the same folder. The lock file holds the owner's pid; a
 * lock whose process no longer exists is stale and taken over. Not guarded:
 * two hosts sharing the folder over a network file system.
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
  const content = `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, content, { flag: 'wx' });
      heldInThisProcess.add(path);
      return { path, release: () => releaseLock(path) };
    } catch (error) {
      if (!isErrorCode(error, 'EEXIST')) throw error;
    }
    const ownerPid = readOwnerPid(path);
    if (ownerPid === null && isRecent(path)) {
      // Another process has just created the file and not yet written its pid.
      throw new Error(`Embedded PostgreSQL data directory ${dataDir} is being opened by another process`);
    }
    if (ownerPid !== null && ownerPid !== process.pid && isProcessAlive(ownerPid)) {
      throw new Error(
        `Embedded PostgreSQL data directory ${dataDir} is in use by process ${ownerPid} ` +
          `(lock file ${path}); stop that process, or delete the lock file if it is not a kernel`,
      );
    }
    // Stale: its process is gone, or it carries our own pid from an earlier
    // run (a container restarted as pid 1) while this process holds nothing.
    removeIfPresent(path);
  }
  throw new Error(`Could not take the lock file ${path}: another process keeps creating it`);
}

function releaseLock(path: string): void {
  if (!heldInThisProcess.delete(path)) return;
  if (readOwnerPid(path) === process.pid) removeIfPresent(path);
}

function readOwnerPid(path: string): number | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    const pid = (parsed as { pid?: unknown }).pid;
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null; // unreadable or half-written
  }
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
