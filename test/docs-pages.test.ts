import test from 'ava';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestKernel, api, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const CHROMIUM = '/usr/bin/chromium';
// The pages are loaded under a host name that is not localhost: some viewers behave
// differently on localhost (Swagger UI skips its online validator there), and the docs are
// read on real host names in production.
const DOCS_HOST = 'kernel-docs.test';
// Set to keep the screenshots for a look; otherwise they go to a temp dir removed afterwards.
const KEEP_SCREENSHOTS_IN = process.env.DOCS_SCREENSHOT_DIR;

let kernel: TestKernel;
let dropDb: () => Promise<void>;
let browser: Browser;
let shotsDir: string;

test.before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}; install it with: apt-get update && apt-get install -y chromium`);
  }
  shotsDir = KEEP_SCREENSHOTS_IN ?? mkdtempSync(join(tmpdir(), 'wao-docs-shots-'));
  mkdirSync(shotsDir, { recursive: true });
  const db = await createTestDatabase('docs_pages');
  dropDb = db.drop;
  kernel = await startTestKernel({ roots: [FIXTURES], env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0' } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', `--host-resolver-rules=MAP ${DOCS_HOST} 127.0.0.1`],
  });
});
test.after.always(async () => {
  await browser?.close();
  await kernel?.close();
  await dropDb?.();
  if (shotsDir && !KEEP_SCREENSHOTS_IN) rmSync(shotsDir, { recursive: true, force: true });
});

/** The listener's URL under the docs host name (same port, so the same server). */
function underDocsHost(url: string): string {
  const u = new URL(url);
  u.hostname = DOCS_HOST;
  return u.origin;
}

interface Visit {
  page: Page;
  origin: string;
  /** every URL the page asked for (data: URLs never reach the network and are not reported) */
  requests: string[];
  pageErrors: string[];
  consoleErrors: string[];
  close(): Promise<void>;
}

async function visit(origin: string, path: string): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const requests: string[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (req) => requests.push(req.url()));
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${msg.location().url})`);
  });
  const res = await page.goto(origin + path, { waitUntil: 'load' });
  if (res?.status() !== 200) throw new Error(`${path} answered ${res?.status()}`);
  return { page, origin, requests, pageErrors, consoleErrors, close: () => context.close() };
}

/** blob: URLs (ReDoc's search worker) are made by the page itself, under its own origin. */
function foreignRequests(v: Visit): string[] {
  return v.requests.filter((url) => {
    const own = url.startsWith('blob:') ? url.slice('blob:'.length) : url;
    return new URL(own).origin !== v.origin;
  });
}

async function screenshot(t: { log(...values: unknown[]): void }, page: Page, name: string): Promise<string> {
  const file = join(shotsDir, `${name}.png`);
  await page.screenshot({ path: file });
  t.log(`screenshot: ${file}`);
  return file;
}

test('Swagger UI at /api/docs renders every route from local assets only', async (t) => {
  const v = await visit(underDocsHost(kernel.apiUrl), '/api/docs');
  try {
    const { page } = v;
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    await t.notThrowsAsync(page.locator('.information-container .title', { hasText: 'Workspace Agent Operations API' }).waitFor({ timeout: 5_000 }));

    const doc = (await api(kernel.apiUrl, '/api/openapi.json')).body as { paths: Record<string, object> };
    const rendered = await page.locator('.opblock .opblock-summary-path').evaluateAll((els) => els.map((el) => el.getAttribute('data-path')));
    t.deepEqual([...new Set(rendered)].sort(), Object.keys(doc.paths).sort(), 'one operation block per documented path');

    const hello = page.locator('.opblock.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/api/v1/greeter/hello"]') });
    t.is(await hello.count(), 1);
    t.is(await hello.locator('.authorization__btn').count(), 1, 'a bearer route shows its lock');
    const open = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/api/v1/greeter/open"]') });
    t.is(await open.locator('.authorization__btn').count(), 0, 'a public route shows no lock');
    t.is(await page.locator('.opblock.opblock-post', { has: page.locator('.opblock-summary-path[data-path="/api/v1/greeter/echo"]') }).count(), 1);

    const shot = await screenshot(t, page, 'swagger-ui');
    t.true(statSync(shot).size > 10_000, 'the screenshot has content');

    t.true(v.requests.some((url) => url.endsWith('/api/docs/assets/swagger-ui-bundle.js')));
    t.true(v.requests.some((url) => url.endsWith('/api/openapi.json')));
    t.deepEqual(foreignRequests(v), [], 'every request went to the kernel itself');
    t.deepEqual(v.pageErrors, []);
    t.deepEqual(v.consoleErrors, []);
  } finally {
    await v.close();
  }
});

test('ReDoc at /api/redoc renders the operations from local assets only', async (t) => {
  const v = await visit(underDocsHost(kernel.apiUrl), '/api/redoc');
  try {
    const { page } = v;
    const menu = page.locator('.menu-content');
    await menu.locator('[role=menuitem]').first().waitFor({ timeout: 30_000 });
    for (const title of ['greeter', 'greeter.hello', 'greeter.echo', 'greeter.open', 'cjs-hello.hello', 'esm-hello.hello']) {
      t.is(await menu.locator('label', { hasText: new RegExp(`^(get|post)?${title.replace('.', '\\.')}$`) }).count(), 1, `menu entry ${title}`);
    }
    t.is(await page.locator('h1', { hasText: 'Workspace Agent Operations API' }).count(), 1);
    // each operation's panel shows its verb and full path
    const endpoints = await page.locator('.http-verb').evaluateAll((els) => els.map((el) => `${el.textContent} ${el.nextElementSibling?.textContent}`));
    for (const endpoint of ['get /api/v1/greeter/hello', 'post /api/v1/greeter/echo', 'get /api/v1/greeter/open', 'get /api/v1/cjs-hello/hello', 'get /health', 'get /api/v1/capability-packages']) {
      t.true(endpoints.includes(endpoint), `${endpoint} is rendered (${endpoints.length} endpoints found)`);
    }

    const shot = await screenshot(t, page, 'redoc');
    t.true(statSync(shot).size > 10_000, 'the screenshot has content');

    t.true(v.requests.some((url) => url.endsWith('/api/docs/assets/redoc.standalone.js')));
    t.true(v.requests.some((url) => url.endsWith('/api/openapi.json')));
    t.deepEqual(foreignRequests(v), [], 'every request went to the kernel itself (no CDN logo either)');
    t.deepEqual(v.pageErrors, []);
    t.deepEqual(v.consoleErrors, []);
  } finally {
    await v.close();
  }
});

test('the docs pages forbid loading from other origins', async (t) => {
  for (const path of ['/api/docs', '/api/redoc']) {
    const res = await api(kernel.apiUrl, path);
    t.is(res.status, 200);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
    const policy = res.headers.get('content-security-policy') ?? '';
    t.regex(policy, /default-src 'self'/, path);
    t.regex(policy, /img-src 'self' data:(;|$)/, path);
    t.false(/https?:\/\//.test(res.text), `${path} names no external URL`);
  }
  const missing = await api(kernel.apiUrl, '/api/docs/assets/not-an-asset.js');
  t.is(missing.status, 404);
  t.is(missing.body?.code, 'NOT_FOUND');
});
