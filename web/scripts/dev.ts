/**
 * `npm run dev`: Vite's dev server (hot reload) plus the service, whose web listener on
 * WEB_PORT forwards the app to Vite and /api to the API: one origin, as in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const vitePort = process.env.VITE_PORT ?? '5173';
const children: ChildProcess[] = [];
const run = (cmd: string, args: string[], cwd: string, env: Record<string, string>): void => {
  const child = spawn(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
  child.on('exit', (code) => shutdown(code ?? 0));
  children.push(child);
};
let stopping = false;
function shutdown(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  process.exitCode = code;
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

run(join(ROOT, 'web', 'node_modules', '.bin', 'vite'), ['--port', vitePort], join(ROOT, 'web'), { VITE_PORT: vitePort });
run(process.execPath, ['--import', 'tsx', 'kernel/main.ts'], ROOT, { WEB_DEV_SERVER_URL: `http://127.0.0.1:${vitePort}`, NODE_ENV: process.env.NODE_ENV ?? 'development' });
