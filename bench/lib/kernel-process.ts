import { resolve } from 'node:path';
import { freePort, pathWithThisNode, startDetached, type DetachedProcess } from './processes.ts';

export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

export interface KernelProcess {
  proc: DetachedProcess;
  apiUrl: string;
  /** performance.now() when the process was spawned */
  spawnedAt: number;
}

export interface KernelLaunch {
  dataDir: string;
  logFile: string;
  /** extra or overriding environment variables */
  env?: Record<string, string>;
  /** 'npm' runs `npm start` as a user would; 'node' runs its last step directly (extra node flags allowed) */
  via: 'npm' | 'node';
  nodeFlags?: string[];
  /** checkout to run (default: this project), e.g. a copy with a candidate change */
  root?: string;
}

/** Environment of a bench kernel: free ports on loopback, quiet logs, no rate limit, no watcher. */
export async function kernelEnv(dataDir: string, extra: Record<string, string> = {}): Promise<{ env: NodeJS.ProcessEnv; apiPort: number }> {
  const apiPort = await freePort();
  const webPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: pathWithThisNode(),
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    WEB_PORT: String(webPort),
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    TRANSPORTER: '',
    NODE_ID: '',
    NAMESPACE: `bench${process.pid}`,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    HOT_RELOAD: 'false',
    SHUTDOWN_GRACE_SECONDS: '5',
    ...extra,
  };
  return { env, apiPort };
}

export async function launchKernel(opts: KernelLaunch): Promise<KernelProcess> {
  const { env, apiPort } = await kernelEnv(opts.dataDir, opts.env);
  const [command, args] =
    opts.via === 'npm' ? ['npm', ['start', '--silent']] : [process.execPath, [...(opts.nodeFlags ?? []), '--import', 'tsx', 'kernel/main.ts']];
  const spawnedAt = performance.now();
  const proc = startDetached('kernel', command as string, args as string[], { env, cwd: opts.root ?? PROJECT_ROOT, logFile: opts.logFile });
  return { proc, apiUrl: `http://127.0.0.1:${apiPort}`, spawnedAt };
}
