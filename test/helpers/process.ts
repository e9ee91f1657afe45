import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from './eventually.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

export interface KernelProcess {
  proc: ChildProcess;
  apiUrl: string;
  output(): string;
  exited: Promise<number | null>;
  waitReady(timeoutMs?: number): Promise<boolean>;
  kill(signal?: NodeJS.Signals): void;
  cleanup(): void;
}

/**
 * Runs `node --import tsx kernel/main.ts` (what `npm start` runs) as a separate process. It
 * loads the built-in packages too, except @wao/auth: the tests bring the fixture identity
 * provider (fixed tokens) through CAPABILITY_PATHS instead.
 */
export async function spawnKernel(env: Record<string, string>): Promise<KernelProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-proc-'));
  const apiPort = await freePort();
  const webPort = await freePort();
  let out = '';
  const proc = spawn(process.execPath, ['--import', 'tsx', 'kernel/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, API_HOST: '127.0.0.1', API_PORT: String(apiPort), WEB_PORT: String(webPort), DATA_DIR: dataDir, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'fatal', NODE_ENV: 'test', HOT_RELOAD: 'false', RATE_LIMIT_PER_MINUTE: '0', CAPABILITY_DISABLED: '@wao/auth', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  return {
    proc,
    apiUrl,
    output: () => out,
    exited,
    waitReady: (timeoutMs = 60_000) =>
      eventually(async () => {
        if (proc.exitCode !== null) throw new Error(`kernel exited early (${proc.exitCode}):\n${out}`);
        return (await fetch(`${apiUrl}/health/ready`).catch(() => undefined))?.status === 200;
      }, { timeoutMs, intervalMs: 200 }),
    kill: (signal = 'SIGTERM') => proc.kill(signal),
    cleanup: () => {
      if (proc.exitCode === null) proc.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
