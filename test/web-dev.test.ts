import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from './helpers/eventually.ts';
import { freePort } from './helpers/process.ts';

// `npm run dev` (web/scripts/dev.ts) smoke test: the service and Vite's dev server start on
// free ports; the web listener on WEB_PORT answers the app's HTML from Vite (its hot-reload
// client included) and a source module transformed on the fly, and forwards /api to the API.
// The whole process group is stopped at the end.
const ROOT = resolve(import.meta.dirname, '..');
const EMAIL = 'owner@dev.test';
const PASSWORD = 'a long enough dev password';

test('npm run dev serves the app from Vite on WEB_PORT and proxies /api', async (t) => {
  t.timeout(300_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-dev-'));
  const cacheDir = mkdtempSync(join(tmpdir(), 'wao-dev-vite-'));
  const [apiPort, webPort, vitePort] = [await freePort(), await freePort(), await freePort()];
  let out = '';
  const child = spawn('npm', ['run', 'dev'], {
    cwd: ROOT,
    // its own process group, so the test can stop npm, the script, Vite and the service at once
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      API_HOST: '127.0.0.1', API_PORT: String(apiPort), WEB_PORT: String(webPort), VITE_PORT: String(vitePort), VITE_CACHE_DIR: cacheDir,
      DATA_DIR: dataDir, LOG_LEVEL: 'fatal', HOT_RELOAD: 'false', RATE_LIMIT_PER_MINUTE: '0', ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD,
    },
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const web = `http://127.0.0.1:${webPort}`;
  try {
    const ready = await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`npm run dev exited (${child.exitCode}):\n${out}`);
      // the service ready (its packages loaded) through the web listener, and the app from Vite
      if ((await fetch(`${web}/health/ready`).catch(() => undefined))?.status !== 200) return false;
      const res = await fetch(`${web}/tasks`).catch(() => undefined);
      return res?.status === 200 && (await res.text()).includes('/@vite/client');
    }, { timeoutMs: 240_000, intervalMs: 500 });
    t.true(ready, `the app never came up:\n${out}`);

    // a deep link is the app's HTML from Vite: its hot-reload client and the unbuilt entry module
    const html = await (await fetch(`${web}/workflows/some-id`)).text();
    t.regex(html, /<script type="module" src="\/@vite\/client"><\/script>/);
    t.regex(html, /src="\/src\/main\.tsx"/);
    const entry = await fetch(`${web}/src/main.tsx`);
    t.is(entry.status, 200);
    t.regex(entry.headers.get('content-type') ?? '', /javascript/);
    t.notRegex(await entry.text(), /<App\s*\/>/, 'TSX is transformed on the fly');

    // /api and /health go to the service
    const doc = await fetch(`${web}/api/openapi.json`);
    t.is(doc.status, 200);
    const paths = Object.keys(((await doc.json()) as { paths: Record<string, unknown> }).paths);
    t.true(paths.includes('/api/v1/auth/login'), paths.join(' '));
    const login = await fetch(`${web}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
    t.is(login.status, 200);
    t.is((await fetch(`${web}/api/v1/tasks`)).status, 401, 'the proxy adds no credentials of its own');
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
    if (!stopped) process.kill(-child.pid!, 'SIGKILL');
    // the group's other members (Vite, the service) go too; any left after 20 s are killed
    const groupGone = async (): Promise<boolean> => {
      try {
        process.kill(-child.pid!, 0);
        return false;
      } catch {
        return true;
      }
    };
    if (!(await eventually(groupGone, { timeoutMs: 20_000, intervalMs: 200 }))) process.kill(-child.pid!, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  }
});
