import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Starts a real, separate kernel process (test/workflows-worker-process.ts) loading the packages
 * under `root` with `env` (ROLES, DATABASE_URL, REDIS_URL...), in a fresh data dir pushed to
 * `dataDirs`; resolves once it consumes its queues. Tests kill it with SIGKILL mid-run.
 */
export async function startWorkerProcess(root: string, env: Record<string, string>, dataDirs: string[]): Promise<ChildProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-worker-'));
  dataDirs.push(dataDir);
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'workflows-worker-process.ts')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'error', NODE_ENV: 'test', HOT_RELOAD: 'false', API_PORT: '0', WEB_PORT: '0', TRANSPORTER: '', ...env, WF_ROOT: root, DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // not left behind: nobody else holds this child yet
      child.kill('SIGKILL');
      reject(new Error(`worker did not start:\n${out}`));
    }, 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('WORKER READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`worker exited (${code}):\n${out}`)));
  });
  return child;
}

/** SIGKILL, and wait until it is gone (a process already gone is left alone). */
export async function killWorkerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
