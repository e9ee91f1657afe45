import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireDataDirLock, DATA_DIR_LOCK_FILE } from '../kernel/db/data-dir-lock.ts';
import { bootId, processStat } from '../kernel/db/process-stat.ts';
import { eventually } from './helpers/eventually.ts';

/**
 * The embedded data-directory lock tells a live kernel from a dead one for sure: a killed
 * owner not yet reaped (a zombie) and a pid now used by another process are both stale.
 * Real processes: a zombie is made by a shell that starts a child and then execs `sleep`,
 * which never reaps it.
 */

const children: ChildProcess[] = [];
const dirs: string[] = [];

test.after.always(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function lockDir(owner?: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'wao-lock-'));
  dirs.push(dir);
  if (owner) writeFileSync(join(dir, DATA_DIR_LOCK_FILE), JSON.stringify(owner));
  return dir;
}

function sleeper(): ChildProcess {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

function lockedBy(dir: string): number {
  return (JSON.parse(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8')) as { pid: number }).pid;
}

test('the lock records the pid, start time and boot of its owner, and is released', (t) => {
  const dir = lockDir();
  const lock = acquireDataDirLock(dir);
  const written = JSON.parse(readFileSync(lock.path, 'utf8'));
  t.is(written.pid, process.pid);
  t.is(written.startTicks, processStat('self')!.startTicks);
  t.is(written.bootId, bootId());
  lock.release();
  t.throws(() => readFileSync(lock.path), { code: 'ENOENT' });
});

test('a live owner that started at the recorded time keeps the lock', (t) => {
  const live = sleeper();
  const dir = lockDir({ pid: live.pid, startTicks: processStat(live.pid!)!.startTicks, bootId: bootId() });
  t.throws(() => acquireDataDirLock(dir), { message: new RegExp(`is in use by process ${live.pid}`) });
  t.is(lockedBy(dir), live.pid!);
});

test('a lock written without a start time (older kernels) by a live pid is respected', (t) => {
  const live = sleeper();
  const dir = lockDir({ pid: live.pid });
  t.throws(() => acquireDataDirLock(dir), { message: /is in use by process/ });
});

test('a killed owner not yet reaped (a zombie) no longer holds the lock, although kill(pid, 0) still finds it', async (t) => {
  // sh starts `sleep` in the background, prints its pid, and becomes a `sleep` that never reaps it
  const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(parent);
  const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d) => resolve(String(d).trim()))));
  const stat = processStat(pid);
  t.truthy(stat, 'the child runs');
  const dir = lockDir({ pid, startTicks: stat!.startTicks, bootId: bootId() });
  t.throws(() => acquireDataDirLock(dir), { message: /is in use by process/ }, 'held while it runs');

  process.kill(pid, 'SIGKILL');
  t.truthy(await eventually(async () => processStat(pid)?.state === 'Z'), 'the child is a zombie');
  t.notThrows(() => process.kill(pid, 0), 'a zombie still answers kill(pid, 0)');
  const lock = acquireDataDirLock(dir);
  t.is(lockedBy(dir), process.pid, 'the stale lock was taken over');
  lock.release();
});

test('a pid now used by another process (it started later, or in another boot) does not hold the lock', (t) => {
  const other = sleeper();
  const stat = processStat(other.pid!)!;
  for (const recorded of [
    { pid: other.pid, startTicks: stat.startTicks - 1, bootId: bootId() },
    { pid: other.pid, startTicks: stat.startTicks, bootId: '00000000-0000-0000-0000-000000000000' },
  ]) {
    const dir = lockDir(recorded);
    const lock = acquireDataDirLock(dir);
    t.is(lockedBy(dir), process.pid, JSON.stringify(recorded));
    lock.release();
  }
});
