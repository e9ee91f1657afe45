import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { api, startTestKernel, type TestKernel } from './kernel.ts';
import { BUILTIN_ROOTS } from '../../kernel/capabilities/discover.ts';
// @ts-expect-error plain ESM script without types (npm start runs it before tsx)
import { ensureBuild } from '../../web/scripts/ensure-build.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CHROMIUM = '/usr/bin/chromium';
/** where the e2e suites leave a screenshot of each page they check */
export const ARTIFACTS = join(ROOT, 'test', 'artifacts');

/** The web app's end-to-end set-up: the real service on embedded defaults with the built app, and one Chromium page. */
export interface WebE2e {
  kernel: TestKernel;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** the owner's API token (the page signs in through its own form when a test wants it) */
  token: string;
  /** `METHOD /path` of every /api request the page made */
  apiRequests: string[];
  close(): Promise<void>;
}

export interface WebE2eOptions {
  email: string;
  password: string;
  /** package roots besides the built-in ones */
  extraRoots?: string[];
  env?: Record<string, string>;
  viewport?: { width: number; height: number };
}

/**
 * Builds the app when stale, starts the service (the owner is `email`/`password`) and Debian's
 * Chromium (never a downloaded browser: missing, the suite fails), and opens a page that records
 * its /api requests.
 */
export async function startWebE2e(opts: WebE2eOptions): Promise<WebE2e> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}; install it with: apt-get update && apt-get install -y chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  ensureBuild({ quiet: true });
  const kernel = await startTestKernel({
    roots: [...BUILTIN_ROOTS.map((r) => join(ROOT, r)), ...(opts.extraRoots ?? [])],
    webRoot: join(ROOT, 'web', 'dist'),
    env: { RATE_LIMIT_PER_MINUTE: '0', ADMIN_EMAIL: opts.email, ADMIN_PASSWORD: opts.password, CAPABILITY_PATHS: '', ...opts.env },
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1400, height: 900 } });
  const page = await context.newPage();
  // E2E_PAGE_ERRORS=1 prints the page's uncaught errors and console errors (a blank page in a screenshot says little)
  if (process.env.E2E_PAGE_ERRORS) {
    page.on('pageerror', (err) => console.error('[pageerror]', err.message, err.stack?.split('\n').slice(0, 30).join(' | ')));
    page.on('console', (m) => void (m.type() === 'error' && console.error('[console]', m.text().slice(0, 3000))));
  }
  const apiRequests: string[] = [];
  recordApiRequests(page, apiRequests);
  const token = (await api(kernel.apiUrl, '/api/v1/auth/login', { method: 'POST', json: { email: opts.email, password: opts.password } })).body.access_token as string;
  return {
    kernel, browser, context, page, token, apiRequests,
    async close() {
      await browser.close();
      await kernel.close();
    },
  };
}

/** Adds `METHOD /path` of every /api request `page` makes to `into` (a second tab or user's page too). */
export function recordApiRequests(page: Page, into: string[]): void {
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.pathname.startsWith('/api/')) into.push(`${req.method()} ${url.pathname}`);
  });
}

/** A screenshot of the page into test/artifacts/, and axe on it: no serious or critical violation. */
export async function shotAndAxe(page: Page, t: { deepEqual(a: unknown, b: unknown, m?: string): void }, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  const result = await new AxeBuilder({ page: page as never }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  t.deepEqual(bad, [], `axe on ${name}`);
}

/** The recorded requests whose method and path are no operation of the service's /api/openapi.json. */
export async function requestsOutsideOpenApi(web: WebE2e): Promise<string[]> {
  const doc = (await api(web.kernel.apiUrl, '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const matchers = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) })));
  return [...new Set(web.apiRequests)].filter((r) => {
    const [method, path] = r.split(' ');
    return !matchers.some((m) => m.method === method && m.re.test(path!));
  });
}

/** Signs in through the app's own form (the sign-in dialog must be open or about to open). */
export async function signInThroughForm(page: Page, email: string, password: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.waitFor();
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await dialog.waitFor({ state: 'detached' });
}
