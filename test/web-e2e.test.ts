import test from 'ava';
import { api, type TestKernel } from './helpers/kernel.ts';
import { requestsOutsideOpenApi, shotAndAxe, startWebE2e, type WebE2e } from './helpers/web-e2e.ts';
import type { Page } from 'playwright-core';

// The web app end to end: the real service on embedded defaults (PGlite, in-process queue),
// the built app, Debian's Chromium driven by playwright-core. Screenshots of each main page go
// to test/artifacts/; axe runs on each; every /api request the app made must be a path of
// /api/openapi.json.
const EMAIL = 'owner@web.test';
const PASSWORD = 'a long enough test password';

let web: WebE2e;
let kernel: TestKernel;
let page: Page;
let token: string;

test.before(async (t) => {
  // a build of the app and a first embedded-database start, on a shared 2-core machine
  t.timeout(600_000);
  web = await startWebE2e({ email: EMAIL, password: PASSWORD });
  ({ kernel, page, token } = web);
});
test.after.always(async () => {
  await web?.close();
});

async function createTask(title: string, extra: Record<string, unknown> = {}): Promise<{ id: string; version: number; status: string }> {
  const res = await api(kernel.apiUrl, '/api/v1/tasks', { method: 'POST', token, json: { title, ...extra } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`task create: ${res.status} ${res.text}`);
  return res.body;
}
async function taskStatus(id: string): Promise<string> {
  return (await api(kernel.apiUrl, `/api/v1/tasks/${id}`, { token })).body.status;
}
async function moveViaApi(id: string, status: string): Promise<void> {
  const res = await api(kernel.apiUrl, `/api/v1/tasks/${id}/move`, { method: 'POST', token, json: { status } });
  if (res.status !== 200) throw new Error(`move: ${res.status} ${res.text}`);
}
function card(title: string) {
  return page.locator('.task-card', { has: page.locator('.task-title', { hasText: new RegExp(`^${title}$`) }) });
}

// (a wrong password and an unknown email getting the same message: test/web-e2e-bad-input.test.ts)
test.serial('sign in through the form: the session is an HttpOnly, SameSite=Strict cookie no script can read', async (t) => {
  await page.goto(`${kernel.webUrl}/`);
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.waitFor();
  await shotAndAxe(page, t, 'login');
  await dialog.getByLabel('Email').fill(EMAIL);
  await dialog.getByLabel('Password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await dialog.waitFor({ state: 'detached' });
  const cookies = await page.context().cookies();
  t.true(cookies.some((c) => c.name === 'wao_session' && c.httpOnly && c.sameSite === 'Strict'));
  t.is(await page.evaluate(() => document.cookie), '', 'the session cookie is not readable by scripts');
});

test.serial('create a workspace; an empty name is refused with the field named', async (t) => {
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await t.notThrowsAsync(page.getByRole('alert').filter({ hasText: 'name' }).first().waitFor());
  await page.getByLabel('Name').fill('E2E workspace');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.getByRole('link', { name: 'E2E workspace' }).waitFor();
  await shotAndAxe(page, t, 'workspaces');
  await page.getByRole('link', { name: 'E2E workspace' }).click();
  await page.getByRole('heading', { name: 'E2E workspace' }).waitFor();
  await shotAndAxe(page, t, 'workspace-dashboard');
});

test.serial('create a task from the tasks page; script, onerror and javascript: in its title and Markdown stay inert', async (t) => {
  await page.goto(`${kernel.webUrl}/tasks`);
  await page.getByRole('button', { name: 'New task' }).click();
  const form = page.getByRole('form', { name: 'New task' });
  await form.getByLabel('Title').fill('Write the report <script>alert(1)</script>');
  await form.getByLabel('Description (Markdown)').fill('Hello <img src=x onerror="window.__xss=1"> [x](javascript:window.__xss=2)');
  await form.getByRole('button', { name: 'Create task' }).click();
  await page.getByRole('link', { name: /Write the report/ }).waitFor();
  await shotAndAxe(page, t, 'tasks');
  await page.getByRole('link', { name: /Write the report/ }).click();
  await page.getByRole('heading', { name: 'History' }).waitFor();
  t.is(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
  t.is(await page.locator('.markdown a[href^="javascript:"]').count(), 0);
  await shotAndAxe(page, t, 'task-detail');
});

test.serial('board: drag by mouse, drag by keyboard, an illegal drop refused, a stale move rolled back', async (t) => {
  const mouse = await createTask('Mouse task');
  const keyboard = await createTask('Keyboard task');
  const done = await createTask('Done task');
  await moveViaApi(done.id, 'in_progress');
  await moveViaApi(done.id, 'completed');
  const stale = await createTask('Stale task');
  await page.goto(`${kernel.webUrl}/board`);
  await card('Mouse task').waitFor();
  await shotAndAxe(page, t, 'board');

  // mouse: To Do -> In Progress (created -> in_progress is legal)
  const handle = card('Mouse task').locator('.drag-handle');
  const target = page.locator('section.column', { has: page.locator('h2', { hasText: 'In Progress' }) });
  const from = (await handle.boundingBox())!;
  const to = (await target.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + 30, from.y + 10, { steps: 5 });
  t.true(await page.locator('section.column.drop-legal').count() > 0, 'legal columns are marked while dragging');
  await page.mouse.move(to.x + to.width / 2, to.y + 80, { steps: 10 });
  await page.mouse.up();
  await target.locator('.task-title', { hasText: 'Mouse task' }).waitFor();
  await t.notThrowsAsync(async () => { for (let i = 0; i < 50 && (await taskStatus(mouse.id)) !== 'in_progress'; i++) await page.waitForTimeout(100); });
  t.is(await taskStatus(mouse.id), 'in_progress');

  // keyboard: space to pick up, arrows to a column, space to drop
  // wait for the board to settle after the first move (its columns refetch), then take the handle
  await page.waitForFunction(() => !document.querySelector('[role=status]')?.textContent?.includes('Loading'));
  await page.waitForTimeout(300);
  await card('Keyboard task').locator('.drag-handle').focus();
  t.regex(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? ''), /Keyboard task/);
  await page.keyboard.press('Space');
  await page.locator('section.column.drop-legal').first().waitFor();
  await page.keyboard.press('ArrowRight');
  // over the next column, not still over its own (picked up, the card is over To Do: a slow page
  // would otherwise drop it back where it was)
  await page.locator('section.column.drop-over', { hasNot: page.locator('h2', { hasText: 'To Do' }) }).first().waitFor();
  await page.keyboard.press('Space');
  for (let i = 0; i < 50 && (await taskStatus(keyboard.id)) === 'created'; i++) await page.waitForTimeout(100);
  t.not(await taskStatus(keyboard.id), 'created', 'the keyboard drag moved the task');
  t.regex(await page.getByTestId('announcer').innerText(), /Moved "Keyboard task"|Dropped|Picked up/);

  // illegal: completed -> In Progress is refused on the spot
  const doneHandle = card('Done task').locator('.drag-handle');
  const b = (await doneHandle.boundingBox())!;
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + 30, b.y + 10, { steps: 5 });
  const inProgress = (await target.boundingBox())!;
  await page.mouse.move(inProgress.x + inProgress.width / 2, inProgress.y + 80, { steps: 10 });
  await page.mouse.up();
  const refused = page.locator('.notice-refused');
  await refused.waitFor();
  t.regex(await refused.innerText(), /cannot move to In Progress.*pending/s);
  t.is(await taskStatus(done.id), 'completed');
  await shotAndAxe(page, t, 'board-refused');

  // stale: the task moves behind the page; the page's move is answered 409 and rolled back
  await moveViaApi(stale.id, 'cancelled');
  await card('Stale task').locator('select.move-to').selectOption('in_progress');
  const conflict = page.locator('.notice-conflict');
  await conflict.waitFor();
  t.regex(await conflict.innerText(), /not moved/);
  t.is(await taskStatus(stale.id), 'cancelled');
});

test.serial('operators, workflows and an unknown page render; the API stopped is an error state, not a blank page', async (t) => {
  await page.goto(`${kernel.webUrl}/operators`);
  await page.getByRole('heading', { name: 'Capability packages' }).waitFor();
  await page.locator('td', { hasText: '@wao/tasks' }).first().waitFor();
  await shotAndAxe(page, t, 'operators');
  await page.goto(`${kernel.webUrl}/workflows`);
  await page.getByRole('heading', { name: 'Workflows' }).waitFor();
  await shotAndAxe(page, t, 'workflows');
  await page.goto(`${kernel.webUrl}/no/such/page`);
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  await page.route('**/api/v1/workspaces**', (route) => route.abort('connectionrefused'));
  await page.goto(`${kernel.webUrl}/`);
  await page.getByRole('heading', { name: 'The service cannot be reached' }).first().waitFor();
  await shotAndAxe(page, t, 'api-unreachable');
  await page.unroute('**/api/v1/workspaces**');
});


test.serial('a run waiting for approval: listed without a reload, approved from its page, finished live', async (t) => {
  const wf = await api(kernel.apiUrl, '/api/v1/workflows', {
    method: 'POST', token,
    json: { name: 'Approval flow', trigger_type: 'manual', steps: [
      { id: 'start', type: 'trigger', config: {}, next: ['gate'] },
      { id: 'gate', type: 'wait', name: 'Manager approval', config: { wait_type: 'approval' }, next: ['finish'] },
      { id: 'finish', type: 'end', config: {}, next: [] },
    ] },
  });
  t.is(wf.status, 201, wf.text);
  await page.goto(`${kernel.webUrl}/runs`);
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  const started = await api(kernel.apiUrl, `/api/v1/workflows/${wf.body.id}/run`, { method: 'POST', token, json: { input: {} } });
  t.is(started.status, 202, started.text);
  const runId: string = started.body.run_id;
  const link = page.getByRole('link', { name: runId.slice(0, 8) });
  await link.waitFor();
  await page.locator('tr', { has: link }).getByText('paused').waitFor();
  await shotAndAxe(page, t, 'runs');
  await link.click();
  const decision = page.getByRole('form', { name: 'Decision' });
  await decision.waitFor();
  await shotAndAxe(page, t, 'run-paused');
  await decision.getByLabel('Comment').fill('looks fine');
  await decision.getByRole('button', { name: 'Approve' }).click();
  await page.locator('.page-head .status-completed').waitFor();
  await page.locator('li.card', { hasText: 'Manager approval' }).locator('.status-completed').waitFor();
  t.is((await api(kernel.apiUrl, `/api/v1/workflows/runs/${runId}`, { token })).body.status, 'completed');
});

test.serial('every /api request the app made is a path of /api/openapi.json', async (t) => {
  t.true(web.apiRequests.length > 10);
  t.deepEqual(await requestsOutsideOpenApi(web), []);
});
