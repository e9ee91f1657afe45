/**
 * The workflow editor in a browser: Debian's Chromium (playwright-core) against the real
 * service on embedded defaults and the built app.
 *
 * 1. Time to interactive, median of `--loads` cold loads (a fresh browser context each: empty
 *    cache), of the editor with a `--nodes`-step workflow made through the API (no positions:
 *    dagre lays it out) and of an empty page of the app (the not-found page), and their ratio.
 *    TTI = the data painted (every node in the DOM; the page's heading), then 500 ms without a
 *    long task (PerformanceObserver `longtask`).
 * 2. Frame intervals (requestAnimationFrame) while panning the canvas and while dragging a
 *    node across it, p50/p95/p99, and long tasks over 100 ms.
 * 3. A CPU profile (CDP Profiler) of the slowest case, dragging a node, by function.
 *
 *   node --import tsx bench/web-editor.ts [--nodes 100] [--loads 10]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig } from '../config/load.ts';
import { startKernel } from '../kernel/bootstrap.ts';
import { BUILTIN_ROOTS } from '../kernel/capabilities/discover.ts';
import { PROJECT_ROOT } from './lib/kernel-process.ts';
import { printSummary, summarizeProfile } from './lib/cpu-profile.ts';
import { median, percentile, round } from './lib/stats.ts';
// @ts-expect-error plain ESM script without types
import { ensureBuild } from '../web/scripts/ensure-build.mjs';

const { values: args } = parseArgs({ options: { nodes: { type: 'string', default: '100' }, loads: { type: 'string', default: '10' } } });
const NODES = Number(args.nodes);
const LOADS = Number(args.loads);
const EMAIL = 'bench@editor.test';
const PASSWORD = 'bench editor password 1';
const QUIET_MS = 500;

/** a tree of `count` steps: a trigger, then transforms and conditions, two children each */
function bigWorkflow(count: number): Record<string, unknown> {
  const steps = Array.from({ length: count }, (_, i) => {
    const id = i === 0 ? 'start' : `s${i}`;
    const kids = [2 * i + 1, 2 * i + 2].filter((k) => k < count).map((k) => `s${k}`);
    if (i === 0) return { id, type: 'trigger', config: {}, next: kids.slice(0, 1) };
    if (i % 5 === 0 && kids.length === 2) return { id, type: 'condition', name: `Check ${i}`, config: { expression: `{{trigger.n${i}}}`, branches: { true: kids[0], false: kids[1] } }, next: kids };
    return { id, type: 'transform', name: `Step ${i}`, config: { set: { n: i } }, next: kids };
  });
  // the trigger's second child would be an orphan entry: hang it under s1 instead
  const orphan = steps.find((s) => s.id === 's2');
  if (orphan) (steps.find((s) => s.id === 's1')!.next as string[]).push('s2');
  return { name: `Bench ${count} nodes`, steps };
}

const INIT = () => {
  const w = window as unknown as { __longTasks: { start: number; end: number }[] };
  w.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__longTasks.push({ start: e.startTime, end: e.startTime + e.duration });
  }).observe({ type: 'longtask', buffered: true });
};

/** ms from navigation start until painted + 500 ms without a long task (the TTI) */
async function tti(page: Page, painted: () => Promise<unknown>): Promise<{ paintedMs: number; ttiMs: number }> {
  await painted();
  const paintedMs = await page.evaluate(() => performance.now());
  for (;;) {
    const { now, lastEnd } = await page.evaluate(() => {
      const tasks = (window as unknown as { __longTasks: { end: number }[] }).__longTasks;
      return { now: performance.now(), lastEnd: tasks.reduce((m, t) => Math.max(m, t.end), 0) };
    });
    const from = Math.max(paintedMs, lastEnd);
    if (now - from >= QUIET_MS) return { paintedMs, ttiMs: from };
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function frames(page: Page, act: () => Promise<void>): Promise<{ intervals: number[]; longTasks: number[] }> {
  // a string, not a function: tsx would wrap the named inner function in a helper the page lacks
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__recording = true;
    window.__ltFrom = performance.now();
    const tick = (t) => { window.__frames.push(t); if (window.__recording) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);
  await act();
  return page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __recording: boolean; __ltFrom: number; __longTasks: { start: number; end: number }[] };
    w.__recording = false;
    const intervals = w.__frames.slice(1).map((t, i) => t - w.__frames[i]!);
    const longTasks = w.__longTasks.filter((t) => t.start >= w.__ltFrom).map((t) => t.end - t.start);
    return { intervals, longTasks };
  });
}

function describe(label: string, r: { intervals: number[]; longTasks: number[] }): Record<string, number> {
  const out = { frames: r.intervals.length, p50: round(percentile(r.intervals, 50), 1), p95: round(percentile(r.intervals, 95), 1), p99: round(percentile(r.intervals, 99), 1), max: round(Math.max(...r.intervals), 1), longTasksOver100: r.longTasks.filter((d) => d > 100).length, longestTask: round(Math.max(0, ...r.longTasks), 1) };
  console.log(`${label.padEnd(22)} frames ${out.frames}, interval p50 ${out.p50} ms, p95 ${out.p95}, p99 ${out.p99}, max ${out.max}; long tasks > 100 ms: ${out.longTasksOver100} (longest ${out.longestTask} ms)`);
  return out;
}

async function drag(page: Page, from: { x: number; y: number }, by: { x: number; y: number }, steps = 60): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= steps; i++) {
    await page.mouse.move(from.x + (by.x * i) / steps, from.y + (by.y * i) / steps);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  }
  await page.mouse.up();
}

async function main(): Promise<void> {
  ensureBuild({ quiet: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-web-editor-'));
  const config = loadConfig({ API_PORT: '0', WEB_PORT: '0', API_HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'fatal', NODE_ENV: 'production', HOT_RELOAD: 'false', CAPABILITY_PATHS: '', DATABASE_URL: '', REDIS_URL: '', TRANSPORTER: '', RATE_LIMIT_PER_MINUTE: '0', ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD }, join(dataDir, '.env'));
  const kernel = await startKernel(config, { roots: BUILTIN_ROOTS.map((r) => join(PROJECT_ROOT, r)), webRoot: join(PROJECT_ROOT, 'web', 'dist') });
  let browser: Browser | undefined;
  try {
    const login = await fetch(`${kernel.apiUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
    const token = ((await login.json()) as { access_token: string }).access_token;
    const created = await fetch(`${kernel.apiUrl}/api/v1/workflows`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(bigWorkflow(NODES)) });
    if (created.status !== 201) throw new Error(`workflow: ${created.status} ${await created.text()}`);
    const workflowId = ((await created.json()) as { id: string }).id;
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    const signIn = await browser.newContext();
    const res = await signIn.request.post(`${kernel.webUrl}/session`, { data: { email: EMAIL, password: PASSWORD }, headers: { origin: kernel.webUrl! } });
    if (!res.ok()) throw new Error(`session: ${res.status()}`);
    const cookies = await signIn.cookies();
    await signIn.close();

    const load = async (path: string, painted: (p: Page) => Promise<unknown>) => {
      const context = await browser!.newContext({ viewport: { width: 1400, height: 900 } });
      await context.addCookies(cookies);
      await context.addInitScript(INIT);
      const page = await context.newPage();
      await page.goto(`${kernel.webUrl}${path}`);
      const r = await tti(page, () => painted(page));
      await context.close();
      return r;
    };
    const empty: number[] = [];
    const editor: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      // alternated, so drift on a shared machine touches both alike
      empty.push((await load('/bench-empty-page', (p) => p.getByRole('heading', { name: 'Page not found' }).waitFor())).ttiMs);
      editor.push((await load(`/workflows/${workflowId}`, (p) => p.waitForFunction((n) => document.querySelectorAll('.react-flow__node').length >= n, NODES, { polling: 'raf', timeout: 120_000 }))).ttiMs);
    }
    const emptyMs = round(median(empty), 0);
    const editorMs = round(median(editor), 0);
    console.log(`TTI, median of ${LOADS} cold loads: empty page ${emptyMs} ms, editor with ${NODES} nodes ${editorMs} ms, ratio ${round(editorMs / emptyMs, 2)}`);

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addCookies(cookies);
    await context.addInitScript(INIT);
    const page = await context.newPage();
    await page.goto(`${kernel.webUrl}/workflows/${workflowId}`);
    await page.waitForFunction((n) => document.querySelectorAll('.react-flow__node').length >= n, NODES, { polling: 'raf' });
    await page.waitForTimeout(1000);
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    const pan = describe('panning the canvas', await frames(page, () => drag(page, { x: pane.x + 10, y: pane.y + pane.height - 10 }, { x: 300, y: -200 })));
    // the node nearest the middle of the visible canvas (others may sit under the side panels)
    const index = await page.evaluate(`(() => {
      const pane = document.querySelector('.react-flow__pane').getBoundingClientRect();
      const cx = pane.x + pane.width / 2, cy = pane.y + pane.height / 2;
      let best = 0, bestD = Infinity;
      document.querySelectorAll('.react-flow__node').forEach((n, i) => {
        const r = n.getBoundingClientRect();
        const d = Math.hypot(r.x + r.width / 2 - cx, r.y + r.height / 2 - cy);
        if (d < bestD) { bestD = d; best = i; }
      });
      return best;
    })()`);
    const target = page.locator('.react-flow__node').nth(index as number);
    const box = (await target.boundingBox())!;
    // the slowest case: dragging a node re-renders on every pointer move; profiled while it runs
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    const dragged = describe('dragging a node', await frames(page, () => drag(page, { x: box.x + box.width / 2, y: box.y + box.height / 3 }, { x: 120, y: 80 })));
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: unknown };
    const moved = (await target.boundingBox())!;
    if (Math.abs(moved.x - box.x) < 30) throw new Error(`the node did not move (${box.x} -> ${moved.x})`);
    const profileFile = join(dataDir, 'editor-drag.cpuprofile');
    writeFileSync(profileFile, JSON.stringify(profile));
    console.log('\nCPU profile while dragging a node:');
    printSummary(summarizeProfile(profileFile, PROJECT_ROOT, 15));
    await context.close();
    console.log(JSON.stringify({ bench: 'web-editor', nodes: NODES, loads: LOADS, tti: { emptyMs, editorMs, ratio: round(editorMs / emptyMs, 2) }, pan, drag: dragged }));
  } finally {
    await browser?.close();
    await kernel.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
