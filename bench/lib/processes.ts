import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Servers under test run in their own session (spawn `detached` is setsid(2)): a server left in
 * the load generator's session gets less CPU on this machine. Every group started here is
 * killed when the bench exits, whatever the reason.
 */
export interface DetachedProcess {
  name: string;
  child: ChildProcess;
  /** process group id (= pid of the session leader) */
  pgid: number;
  logFile: string;
  /** resolves with the exit code (or signal) of the session leader */
  exited: Promise<number | string>;
  hasExited(): boolean;
}

const running = new Set<DetachedProcess>();
let handlersInstalled = false;

function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // group already gone
  }
}

/** Live (non-zombie) members of a process group, from /proc: an orphan zombie may never be reaped here. */
function groupAlive(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // fields after the ")" closing the command name: state ppid pgrp ...
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') return true;
    } catch {
      // process ended while scanning
    }
  }
  return false;
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const p of running) killGroup(p.pgid, 'SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      for (const p of running) killGroup(p.pgid, 'SIGKILL');
      process.exit(130);
    });
  }
}

/** The PATH a child needs to find this same Node (Node 24) first. */
export function pathWithThisNode(): string {
  return `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
}

export function startDetached(name: string, command: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string; logFile: string }): DetachedProcess {
  installExitHandlers();
  const fd = openSync(opts.logFile, 'a');
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  let done = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const proc: DetachedProcess = { name, child, pgid: child.pid, logFile: opts.logFile, exited, hasExited: () => done };
  running.add(proc);
  return proc;
}

/** SIGTERM to the whole group, then SIGKILL whatever is left after `graceMs`. Returns ms taken. */
export async function stopGroup(proc: DetachedProcess, graceMs = 10_000): Promise<number> {
  const started = performance.now();
  killGroup(proc.pgid, 'SIGTERM');
  const deadline = started + graceMs;
  while (groupAlive(proc.pgid) && performance.now() < deadline) await sleep(50);
  if (groupAlive(proc.pgid)) {
    killGroup(proc.pgid, 'SIGKILL');
    while (groupAlive(proc.pgid) && performance.now() < deadline + 5_000) await sleep(50);
  }
  await Promise.race([proc.exited, sleep(5_000)]);
  running.delete(proc);
  return performance.now() - started;
}

export async function stopAll(graceMs?: number): Promise<void> {
  await Promise.all([...running].map((p) => stopGroup(p, graceMs)));
}

export function tailOf(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `url` until it answers `status`. Fails early, with the log's tail, when the process dies.
 * Returns the ms elapsed since `since` (performance.now() clock).
 */
export async function waitForStatus(url: string, status: number, opts: { proc: DetachedProcess; timeoutMs: number; intervalMs?: number; since?: number }): Promise<number> {
  const since = opts.since ?? performance.now();
  const deadline = since + opts.timeoutMs;
  while (performance.now() < deadline) {
    if (opts.proc.hasExited()) throw new Error(`${opts.proc.name} exited (${await opts.proc.exited}) before ${url} answered ${status}:\n${tailOf(opts.proc.logFile)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === status) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await sleep(opts.intervalMs ?? 100);
  }
  throw new Error(`${url} did not answer ${status} within ${opts.timeoutMs} ms:\n${tailOf(opts.proc.logFile)}`);
}
