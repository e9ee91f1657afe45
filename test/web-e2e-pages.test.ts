import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, type TestKernel } from './helpers/kernel.ts';
import { writePackage } from './helpers/packages.ts';
import { requestsOutsideOpenApi, shotAndAxe, signInThroughForm, startWebE2e, type WebE2e } from './helpers/web-e2e.ts';

// The jobs, bindings, runs, task import/calendar and operators pages end to end: the real
// service on embedded defaults, the built app, Debian's Chromium. Screenshots to
// test/artifacts/, axe on each page, every /api request a path of /api/openapi.json.
const EMAIL = 'owner@pages.test';
const PASSWORD = 'a long enough test password';

let web: WebE2e;
let kernel: TestKernel;
let page: Page;
let token: string;
let workspaceId: string;
let workflowId: string;
// an extra package folder watched while the service runs: a package written here is hot-loaded
const hotRoot = mkdtempSync(join(tmpdir(), 'wao-pages-hot-'));

test.before(async (t) => {
  t.timeout(600_000);
  web = await startWebE2e({ email: EMAIL, password: PASSWORD, extraRoots: [hotRoot], env: { HOT_RELOAD: 'true' } });
  ({ kernel, page, token } = web);
  workspaceId = (await call('/api/v1/workspaces', { method: 'POST', json: { name: 'Pages workspace' } })).body.id;
  workflowId = (await call('/api/v1/workflows', { method: 'POST', json: { name: 'Echo flow', trigger_type: 'manual', steps: [
    { id: 'start', type: 'trigger', config: {}, next: ['finish'] },
    { id: 'finish', type: 'end', config: {}, next: [] },
  ] } })).body.id;
  // sign in through the form once; the cookie carries the session for every page after
  await page.goto(`${kernel.webUrl}/`);
  await signInThroughForm(page, EMAIL, PASSWORD);
});
test.after.always(async () => {
  await web?.close();
  rmSync(hotRoot, { recursive: true, force: true });
});

function call(path: string, init: Parameters<typeof api>[2] = {}) {
  return api(kernel.apiUrl, path, { token, ...init });
}

async function until<T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const v = await probe();
    if (v) return v;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

test.serial('jobs: empty state, a bad cron named inline as typed, a save 422 at its field, create with the next fire times previewed', async (t) => {
  await page.goto(`${kernel.webUrl}/jobs`);
  await page.getByText('No scheduled jobs yet.').waitFor();
  await shotAndAxe(page, t, 'jobs-empty');
  await page.getByRole('link', { name: 'Create the first scheduled job' }).click();
  const form = page.getByRole('form', { name: 'New job' });
  await form.waitFor();
  const preview = form.getByRole('region', { name: 'Next fire times' });
  await preview.getByRole('listitem').first().waitFor();
  const cron = form.getByLabel(/^Cron \(/);
  await cron.fill('61 * * * *');
  await form.locator('.field-errors', { hasText: 'schedule.cron' }).waitFor();
  t.is(await cron.getAttribute('aria-invalid'), 'true');
  await shotAndAxe(page, t, 'job-form-invalid');
  await cron.fill('30 2 * * *');
  await form.getByLabel('Time zone').fill('America/New_York');
  await until(async () => !(await cron.getAttribute('aria-invalid'))?.includes('true') && (await preview.getByRole('listitem').count()) === 5, 'five fire times');
  t.regex(await preview.innerText(), /2:30/);
  // agent is the default executor and needs a message: the server's 422 lands on that field
  await form.getByLabel('Name').fill('Nightly echo');
  await form.getByRole('button', { name: 'Create job' }).click();
  await form.locator('.field-errors', { hasText: 'payload_message' }).waitFor();
  t.is(await form.getByLabel(/^Message/).getAttribute('aria-invalid'), 'true');
  t.is((await call('/api/v1/jobs')).body.total, 0, 'nothing stored');
  // the workflow executor with a binding of the workspace
  const binding = (await call('/api/v1/workflows/bindings', { method: 'POST', json: { workflow_id: workflowId, workspace_id: workspaceId, trigger: 'manual' } })).body;
  await form.getByLabel('Executor').selectOption('workflow');
  await form.getByLabel('Workspace').selectOption(workspaceId);
  await form.getByLabel('Executor config (JSON)').fill(JSON.stringify({ binding_id: binding.id }));
  await form.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Nightly echo' }).waitFor();
  const next = page.locator('.fire-times li');
  await next.first().waitFor();
  t.is(await next.count(), 5);
  const job = (await call('/api/v1/jobs')).body.items[0];
  t.like(job, { name: 'Nightly echo', executor: 'workflow', schedule: { kind: 'cron', cron: '30 2 * * *', timezone: 'America/New_York' } });
});

test.serial('jobs: run now shows in the run log without a reload; the run page links the workflow run and its timeline', async (t) => {
  await page.getByRole('button', { name: 'Run now: Nightly echo' }).click();
  const row = page.locator('table tbody tr').first();
  await row.getByText('succeeded').waitFor({ timeout: 30_000 });
  await shotAndAxe(page, t, 'job-detail');
  await row.getByRole('link').click();
  await page.getByRole('heading', { name: 'Timeline' }).waitFor();
  await page.locator('.timeline li', { hasText: 'finish' }).waitFor();
  t.true(await page.getByRole('link', { name: /^Workflow run / }).count() === 1, 'links the workflow run');
  await shotAndAxe(page, t, 'job-run');
});

test.serial('jobs list: counts per status, edit, pause, the paused filter, search with no match, delete confirmed, an API error with retry, not found', async (t) => {
  await page.goto(`${kernel.webUrl}/jobs`);
  const status = page.getByRole('group', { name: 'Status' });
  await status.getByRole('button', { name: /All\s+1/ }).waitFor();
  await shotAndAxe(page, t, 'jobs');
  // edit: the form holds the saved values; a changed schedule is saved and previewed again
  await page.getByRole('link', { name: 'Edit Nightly echo' }).click();
  const form = page.getByRole('form', { name: 'Edit job' });
  t.is(await form.getByLabel(/^Cron \(/).inputValue(), '30 2 * * *');
  t.is(await form.getByLabel('Time zone').inputValue(), 'America/New_York');
  await form.getByLabel(/^Cron \(/).fill('15 8 * * 1');
  await form.getByRole('region', { name: 'Next fire times' }).getByText(/Mon/).first().waitFor();
  await form.getByRole('button', { name: 'Save job' }).click();
  // the job's own page once the save answered (the edit page's heading names the job too)
  await page.waitForURL(/\/jobs\/[^/]+$/);
  await page.getByRole('heading', { name: 'Nightly echo' }).waitFor();
  t.is((await call('/api/v1/jobs')).body.items[0].schedule.cron, '15 8 * * 1');
  await page.goto(`${kernel.webUrl}/jobs`);
  await page.getByRole('button', { name: 'Pause Nightly echo' }).click();
  await status.getByRole('button', { name: /Paused\s+1/ }).waitFor();
  await status.getByRole('button', { name: /Paused/ }).click();
  await page.getByRole('link', { name: 'Nightly echo', exact: true }).waitFor();
  t.is((await call('/api/v1/jobs?status=paused')).body.total, 1);
  await page.getByLabel('Search jobs').fill('no such job');
  await page.getByLabel('Search jobs').press('Enter');
  await page.getByText('No jobs match this filter.').waitFor();
  await page.getByRole('button', { name: 'Show all jobs' }).click();
  await page.getByRole('button', { name: 'Delete Nightly echo' }).click();
  await page.getByRole('group', { name: 'Confirm deleting Nightly echo' }).getByRole('button', { name: 'Yes, delete' }).click();
  await page.getByText('No scheduled jobs yet.').waitFor();
  t.is((await call('/api/v1/jobs')).body.total, 0);
  // a failing API: the problem's title, detail, code and request id, and a retry that works
  await page.route('**/api/v1/jobs?**', (route) => route.fulfill({ status: 503, contentType: 'application/problem+json', headers: { 'x-request-id': 'req-pages-1' }, body: JSON.stringify({ title: 'Service unavailable', status: 503, detail: 'The database is not reachable.', code: 'SERVICE_UNAVAILABLE' }) }));
  await page.reload();
  const failed = page.getByRole('alert').filter({ hasText: 'Service unavailable' });
  await failed.waitFor();
  t.regex(await failed.innerText(), /The database is not reachable\.[\s\S]*SERVICE_UNAVAILABLE[\s\S]*req-pages-1/);
  await shotAndAxe(page, t, 'jobs-error');
  await page.unroute('**/api/v1/jobs?**');
  await failed.getByRole('button', { name: 'Retry' }).click();
  await page.getByText('No scheduled jobs yet.').waitFor();
  await page.goto(`${kernel.webUrl}/jobs/00000000-0000-4000-8000-000000000000`);
  await page.getByRole('heading', { name: 'Not found' }).waitFor();
  await shotAndAxe(page, t, 'job-not-found');
});

test.serial('bindings: a webhook binding shows its URL once; the URL works; rotate shows a new one and the old one stops', async (t) => {
  await page.goto(`${kernel.webUrl}/bindings?workspace=${workspaceId}`);
  await page.getByRole('heading', { name: 'Bindings' }).waitFor();
  await page.locator('li.binding').first().waitFor();
  await page.getByRole('button', { name: 'New binding' }).click();
  const form = page.getByRole('form', { name: 'New binding' });
  await form.getByLabel('Workflow').selectOption(workflowId);
  await form.getByLabel('Trigger').selectOption('schedule');
  await form.getByLabel('Cron (5 fields)').fill('0 0 9 * * *');
  await form.getByRole('button', { name: 'Create binding' }).click();
  await form.getByRole('alert').filter({ hasText: 'trigger.schedule' }).waitFor();
  t.is(await form.getByLabel('Cron (5 fields)').getAttribute('aria-invalid'), 'true');
  await form.getByLabel('Trigger').selectOption('webhook');
  await form.getByRole('button', { name: 'Create binding' }).click();
  const secret = page.getByTestId('webhook-url');
  await secret.waitFor();
  const url = await secret.innerText();
  t.regex(url, /\/api\/v1\/workflows\/webhook\/\S+$/);
  await shotAndAxe(page, t, 'bindings-secret');
  const hook = new URL(url);
  const first = await api(kernel.apiUrl, hook.pathname, { method: 'POST', json: { hello: 'world' } });
  t.true(first.status < 300, first.text);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  t.is(await page.getByTestId('webhook-url').count(), 0, 'gone once dismissed');
  await page.reload();
  await page.locator('li.binding', { hasText: 'webhook' }).waitFor();
  t.is(await page.getByTestId('webhook-url').count(), 0, 'not shown again');
  await page.getByRole('button', { name: 'Rotate token of Echo flow' }).click();
  await page.getByRole('group', { name: 'Confirm rotate' }).getByRole('button', { name: 'Yes, rotate' }).click();
  await page.getByTestId('webhook-url').waitFor();
  const rotated = await page.getByTestId('webhook-url').innerText();
  t.not(rotated, url);
  t.is((await api(kernel.apiUrl, hook.pathname, { method: 'POST', json: {} })).status, 404, 'the old URL stops');
  await page.getByRole('button', { name: 'I have stored it' }).click();
});

test.serial('bindings: disable and enable, run from a binding, delete confirmed', async (t) => {
  const card = page.locator('li.binding', { hasText: /^Echo flow\s*manual/ });
  await card.waitFor();
  await card.getByRole('button', { name: 'Disable binding of Echo flow' }).click();
  await card.getByText('disabled').waitFor();
  t.true(await card.getByRole('button', { name: 'Run binding of Echo flow' }).isDisabled());
  await card.getByRole('button', { name: 'Enable binding of Echo flow' }).click();
  await card.getByText('● enabled').waitFor();
  await card.getByRole('button', { name: 'Run binding of Echo flow' }).click();
  await card.getByText('Run started').waitFor();
  await shotAndAxe(page, t, 'bindings');
  const before = (await call(`/api/v1/workflows/bindings?workspace_id=${workspaceId}`)).body.total;
  await card.getByRole('button', { name: 'Delete binding of Echo flow' }).click();
  await card.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Yes, delete' }).click();
  await until(async () => (await call(`/api/v1/workflows/bindings?workspace_id=${workspaceId}`)).body.total === before - 1, 'the binding deleted');
  t.pass();
});

test.serial('runs: a run started behind the page is listed without a reload; the workflow filter', async (t) => {
  await page.goto(`${kernel.webUrl}/runs`);
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  const started = await call(`/api/v1/workflows/${workflowId}/run`, { method: 'POST', json: { workspace_id: workspaceId, input: {} } });
  t.is(started.status, 202, started.text);
  const link = page.getByRole('link', { name: `Run ${started.body.run_id}` });
  await link.waitFor();
  await page.locator('tr', { has: link }).getByText('Echo flow').waitFor();
  await page.getByLabel('Workflow').selectOption(workflowId);
  await link.waitFor();
  t.regex(page.url(), new RegExp(`workflow_id=${workflowId}`));
  await shotAndAxe(page, t, 'runs-filtered');
});

test.serial('tasks: a CSV with a bad row is previewed, refused with its row and problems, nothing imported; a good one imports', async (t) => {
  await page.goto(`${kernel.webUrl}/tasks`);
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const panel = page.getByRole('region', { name: 'Import tasks from CSV' });
  const today = new Date().toISOString().slice(0, 10);
  const bad = `title,priority,deadline,workspace_id\nGood row,2,${today}T12:00:00Z,${workspaceId}\nBad row,9,next week,${workspaceId}\n`;
  await panel.getByLabel('CSV file').setInputFiles({ name: 'tasks.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
  await panel.getByRole('table', { name: 'Rows to import' }).getByRole('cell', { name: 'Bad row' }).waitFor();
  await panel.getByRole('button', { name: 'Import 2 rows' }).click();
  const alert = panel.getByRole('alert').filter({ hasText: 'Nothing was imported' });
  await alert.waitFor();
  t.regex(await alert.innerText(), /Row 3: priority: .*\n?.*deadline/s);
  t.is(await panel.locator('tr.row-failed').count(), 1);
  t.is((await call(`/api/v1/tasks?workspace=${workspaceId}`)).body.total, 0, 'nothing imported');
  await shotAndAxe(page, t, 'tasks-import-refused');
  const good = `title,priority,deadline,workspace_id\nDue today,2,${today}T12:00:00Z,${workspaceId}\nDue later,3,,${workspaceId}\n`;
  await panel.getByLabel('CSV file').setInputFiles({ name: 'tasks.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
  await panel.getByRole('button', { name: 'Import 2 rows' }).click();
  await panel.getByText('Imported 2 tasks.').waitFor();
  t.is((await call(`/api/v1/tasks?workspace=${workspaceId}`)).body.total, 2);
});

test.serial('tasks calendar: a task on its deadline day in the month and in the week', async (t) => {
  await page.getByRole('button', { name: 'Calendar' }).click();
  const grid = page.getByRole('grid');
  await grid.getByRole('link', { name: 'Due today' }).waitFor();
  t.is(await grid.getByRole('link', { name: 'Due later' }).count(), 0, 'no deadline, not on the calendar');
  const cell = page.locator('.cal-today');
  await cell.getByRole('link', { name: 'Due today' }).waitFor();
  await shotAndAxe(page, t, 'tasks-calendar-month');
  await page.getByRole('button', { name: 'Week', exact: true }).click();
  await page.locator('.cal-week .cal-today').getByRole('link', { name: /Due today/ }).waitFor();
  await page.getByRole('button', { name: 'Next week' }).click();
  await page.locator('.cal-week').waitFor();
  t.is(await page.getByRole('link', { name: /Due today/ }).count(), 0);
  await shotAndAxe(page, t, 'tasks-calendar-week');
});

test.serial('operators: packages hot-loaded while the page is open show without a reload, a failed one first with its error; the workers from the API', async (t) => {
  await page.goto(`${kernel.webUrl}/operators`);
  const packages = page.getByRole('table', { name: 'Capability packages' });
  await packages.locator('td', { hasText: '@wao/tasks' }).first().waitFor();
  t.is(await packages.locator('td', { hasText: 'pages-hot-probe' }).count(), 0);
  await page.evaluate(() => ((window as unknown as { __samePage?: boolean }).__samePage = true));
  // one package that loads and one that cannot (a syntax error); `zz-` sorts it last by name
  writePackage(hotRoot, 'pages-hot-probe');
  writePackage(hotRoot, 'zz-pages-broken', { body: 'export default { name: "zz-pages-broken", actions: { x: { handler() { return ( } } } };' });
  const broken = await until(async () => {
    const items = (await call('/api/v1/capability-packages')).body.items as { name: string; state: string; error: { code: string; message: string } | null }[];
    return items.find((p) => p.name === 'zz-pages-broken' && p.state === 'failed');
  }, 'the broken package to fail');
  await packages.locator('td', { hasText: 'pages-hot-probe' }).first().waitFor({ timeout: 30_000 });
  const rows = packages.locator('tbody tr');
  await rows.first().filter({ hasText: 'zz-pages-broken' }).waitFor({ timeout: 30_000 });
  const first = await rows.first().locator('td').allInnerTexts();
  t.is(first[0], 'zz-pages-broken');
  t.is(first[4], '⚠ failed');
  t.is(first[5], `${broken.error!.code} ${broken.error!.message}`, 'the error: its code and message');
  t.is(broken.error!.code, 'KERNEL_ERR_ENTRY');
  const states = (await rows.locator('td:nth-child(5)').allInnerTexts()).map((s) => s.startsWith('⚠'));
  t.deepEqual(states, [...states].sort((a, b) => Number(b) - Number(a)), 'every failed package comes before every other');
  t.is(await packages.locator('tr.row-failed', { hasText: 'pages-hot-probe' }).count(), 0, 'the good one loaded');
  t.true(await page.evaluate(() => (window as unknown as { __samePage?: boolean }).__samePage === true), 'shown without a reload');

  // the workers the API lists, this node among them, each a row with its status
  const workers = (await call('/api/v1/workers?limit=200')).body.items as { worker_id: string; status: string; roles: string[] }[];
  t.true(workers.length > 0, 'the node itself is a worker');
  const table = page.getByRole('table', { name: 'Workers' });
  for (const w of workers) {
    const row = table.locator('tr', { has: page.getByRole('cell', { name: w.worker_id, exact: true }) });
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    t.is(cells[0], w.worker_id);
    t.is(cells[1], w.roles.join(', '));
    t.is(cells[5], w.status);
  }
  await shotAndAxe(page, t, 'operators-failed-package');
  rmSync(join(hotRoot, 'zz-pages-broken'), { recursive: true, force: true });
  await packages.getByRole('cell', { name: 'zz-pages-broken', exact: true }).waitFor({ state: 'detached', timeout: 30_000 });
});

test.serial('every /api request the app made is a path of /api/openapi.json', async (t) => {
  t.true(web.apiRequests.length > 10);
  t.deepEqual(await requestsOutsideOpenApi(web), []);
});

