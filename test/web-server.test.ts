import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { authOnlyRoot, OWNER_EMAIL, OWNER_PASSWORD } from './auth-support.ts';

// The web listener (WEB_PORT) over a small built app of its own: static files, the app shell
// for deep links, the CSP, sign-in by HttpOnly cookie, and /api proxied with the cookie
// turned into a bearer token.
let kernel: TestKernel;
let db: TestDatabase;
let webRoot: string;
let packages: { root: string; remove(): void };

test.before(async () => {
  webRoot = mkdtempSync(join(tmpdir(), 'wao-web-root-'));
  mkdirSync(join(webRoot, 'assets'));
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>app shell</title><div id="root"></div>');
  writeFileSync(join(webRoot, 'assets', 'app-1234.js'), 'console.log("app")');
  db = await createTestDatabase('web_server');
  packages = authOnlyRoot();
  kernel = await startTestKernel({ roots: [packages.root], webRoot, env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', ADMIN_EMAIL: OWNER_EMAIL, ADMIN_PASSWORD: OWNER_PASSWORD } });
});
test.after.always(async () => {
  await kernel?.close();
  packages?.remove();
  await db?.drop();
  if (webRoot) rmSync(webRoot, { recursive: true, force: true });
});

const origin = () => kernel.webUrl;

async function signIn(password = OWNER_PASSWORD, email = OWNER_EMAIL) {
  return fetch(`${origin()}/session`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin() }, body: JSON.stringify({ email, password }) });
}

function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  return set.split(';')[0]!;
}

test('deep links get the app shell with a CSP allowing scripts from this origin only', async (t) => {
  for (const path of ['/', '/tasks/0193', '/workflows/abc/edit?x=1', '/book/some-slug']) {
    const res = await fetch(origin() + path);
    t.is(res.status, 200, path);
    t.regex(await res.text(), /app shell/);
    const csp = res.headers.get('content-security-policy') ?? '';
    t.regex(csp, /script-src 'self'(;|$)/, path);
    t.false(/unsafe-eval/.test(csp));
    t.is(res.headers.get('cache-control'), 'no-cache');
  }
});

test('hashed assets are served immutable; a missing asset is a 404 problem, not the shell', async (t) => {
  const js = await fetch(`${origin()}/assets/app-1234.js`);
  t.is(js.status, 200);
  t.regex(js.headers.get('content-type') ?? '', /^text\/javascript/);
  t.regex(js.headers.get('cache-control') ?? '', /immutable/);
  const missing = await api(origin(), '/assets/gone-999.js');
  t.is(missing.status, 404);
  t.is(missing.body.code, 'NOT_FOUND');
  const escape = await api(origin(), '/..%2f..%2fetc/passwd');
  t.not(escape.status, 200);
  const bad = await api(origin(), '/%E0%A4%A');
  t.is(bad.status, 400);
});

test('/api and /health are proxied to the API listener', async (t) => {
  const health = await api(origin(), '/health');
  t.is(health.status, 200);
  const doc = await api(origin(), '/api/openapi.json');
  t.is(doc.status, 200);
  t.truthy(doc.body.paths['/api/v1/auth/me']);
  const anonymous = await api(origin(), '/api/v1/auth/me');
  t.is(anonymous.status, 401);
});

test('a wrong password and an unknown email get the same answer, and no cookie', async (t) => {
  const wrong = await signIn('not the password at all');
  const unknown = await signIn(OWNER_PASSWORD, 'nobody@auth.test');
  t.is(wrong.status, 401);
  t.is(unknown.status, 401);
  const [a, b] = [(await wrong.json()) as Record<string, unknown>, (await unknown.json()) as Record<string, unknown>];
  t.is(a.detail, b.detail);
  t.is(a.code, b.code);
  t.is(wrong.headers.get('set-cookie'), null);
});

test('sign-in sets an HttpOnly SameSite=Strict cookie that the proxy turns into a bearer token; the body holds no token', async (t) => {
  const res = await signIn();
  t.is(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  t.false('access_token' in body);
  const set = res.headers.get('set-cookie') ?? '';
  t.regex(set, /^wao_session=[A-Za-z0-9_-]{20,};/);
  t.regex(set, /HttpOnly/);
  t.regex(set, /SameSite=Strict/);
  t.regex(set, /Path=\//);
  const me = await api(origin(), '/api/v1/auth/me', { headers: { Cookie: cookieOf(res) } });
  t.is(me.status, 200);
  t.is(me.body.email, OWNER_EMAIL);
});

test('a state-changing request signed in by cookie must carry this origin', async (t) => {
  const cookie = cookieOf(await signIn());
  const body = JSON.stringify({ name: 'x' });
  const foreign = await api(origin(), '/api/v1/auth/refresh', { method: 'POST', headers: { Cookie: cookie, Origin: 'https://evil.example', 'Content-Type': 'application/json' }, body });
  t.is(foreign.status, 403);
  t.is(foreign.body.code, 'WEB_ERR_ORIGIN');
  const none = await api(origin(), '/api/v1/auth/refresh', { method: 'POST', headers: { Cookie: cookie } });
  t.is(none.body.code, 'WEB_ERR_ORIGIN');
  const crossLogin = await fetch(`${origin()}/session`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example' }, body: JSON.stringify({ email: OWNER_EMAIL, password: OWNER_PASSWORD }) });
  t.is(crossLogin.status, 403);
  const same = await api(origin(), '/api/v1/auth/me', { headers: { Cookie: cookie, Origin: origin() } });
  t.is(same.status, 200);
});

test('sign-out revokes the token and clears the cookie; refresh renews it', async (t) => {
  const first = cookieOf(await signIn());
  const renewed = await fetch(`${origin()}/session/refresh`, { method: 'POST', headers: { Cookie: first, Origin: origin() } });
  t.is(renewed.status, 200);
  const second = cookieOf(renewed);
  t.not(second, first);
  t.is((await api(origin(), '/api/v1/auth/me', { headers: { Cookie: first } })).status, 401, 'refresh revoked the old token');
  const out = await fetch(`${origin()}/session`, { method: 'DELETE', headers: { Cookie: second, Origin: origin() } });
  t.is(out.status, 204);
  t.regex(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
  t.is((await api(origin(), '/api/v1/auth/me', { headers: { Cookie: second } })).status, 401);
});

test('an oversized sign-in body is 413', async (t) => {
  const res = await fetch(`${origin()}/session`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin() }, body: JSON.stringify({ email: OWNER_EMAIL, password: 'x'.repeat(40_000) }) });
  t.is(res.status, 413);
});
