import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { api, type TestKernel } from './helpers/kernel.ts';
import { recordApiRequests, requestsOutsideOpenApi, shotAndAxe, signInThroughForm, startWebE2e, type WebE2e } from './helpers/web-e2e.ts';

// The bad input, each through the pages of the real service (embedded defaults, the
// built app, Debian's Chromium): the same message for a wrong password and an unknown email,
// an over-long workspace name, priority 0, one task edited in two tabs, an oversized
// attachment, and an approval by someone other than the run owner. Screenshots and axe on each
// refusal; every /api request of every tab a path of /api/openapi.json.
const EMAIL = 'owner@bad-input.test';
const PASSWORD = 'a long enough test password';
const ADMIN_EMAIL = 'admin@bad-input.test';
const ADMIN_PASSWORD = 'another long enough password';
const UPLOAD_LIMIT = 64 * 1024;

let web: WebE2e;
let kernel: TestKernel;
let page: Page;
let token: string;

test.before(async (t) => {
  t.timeout(600_000);
  web = await startWebE2e({ email: EMAIL, password: PASSWORD, env: { UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT) } });
  ({ kernel, page, token } = web);
});
test.after.always(async () => {
  await web?.close();
});

function call(path: string, init: Parameters<typeof api>[2] = {}) {
  return api(kernel.apiUrl, path, { token, ...init });
}

/** One refused sign-in through the form: the alert of this very attempt (it names the answer's request id), without that id. */
async function refusedSignIn(t: ExecutionContext, email: string, password: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel('Password').fill(password);
  const [res] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/session' && r.request().method() === 'POST'),
    dialog.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  t.is(res.status(), 401);
  const requestId = res.headers()['x-request-id'];
  t.truthy(requestId, 'the refusal carries a request id');
  const alert = dialog.getByRole('alert').filter({ hasText: requestId! });
  await alert.waitFor();
  return (await alert.innerText()).replace(requestId!, '<id>');
}

test.serial('sign in: an unknown email and a wrong password get the same message', async (t) => {
  await page.goto(`${kernel.webUrl}/`);
  await page.getByRole('dialog', { name: 'Sign in' }).waitFor();
  const unknown = await refusedSignIn(t, 'nobody@bad-input.test', PASSWORD);
  const wrong = await refusedSignIn(t, EMAIL, 'not the password at all');
  t.regex(unknown, /\S/);
  t.is(wrong, unknown);
  await shotAndAxe(page, t, 'login-refused');
  await signInThroughForm(page, EMAIL, PASSWORD);
});

test.serial('workspaces: an over-long name is refused naming the field; nothing is created', async (t) => {
  await page.goto(`${kernel.webUrl}/`);
  await page.getByRole('button', { name: 'New workspace' }).click();
  const long = 'W'.repeat(121);
  await page.getByLabel('Name').fill(long);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'name' });
  await alert.waitFor();
  t.regex(await alert.innerText(), /120/);
  t.is(await page.getByLabel('Name').inputValue(), long, 'what was typed stays');
  await shotAndAxe(page, t, 'workspace-name-too-long');
  t.is((await call('/api/v1/workspaces')).body.total, 0);
});

test.serial('tasks: priority 0 is not offered, and one forced into the form is refused at its field', async (t) => {
  await page.goto(`${kernel.webUrl}/tasks`);
  await page.getByRole('button', { name: 'New task' }).click();
  const form = page.getByRole('form', { name: 'New task' });
  const priority = form.getByLabel('Priority');
  await priority.locator('option[value="1"]').waitFor({ state: 'attached' });
  const offered = await priority.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  const constants = (await call('/api/v1/tasks/constants')).body as { priorities: { value: number }[] };
  t.deepEqual(offered, ['', ...constants.priorities.map((p) => String(p.value))]);
  t.false(offered.includes('0'));
  // a stale or tampered page: the option is added by hand, and the server's 422 is shown
  await priority.evaluate((el) => el.appendChild(Object.assign(document.createElement('option'), { value: '0', textContent: '0 forged' })));
  await priority.selectOption('0');
  await form.getByLabel('Title').fill('Priority zero');
  const [res] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/tasks' && r.request().method() === 'POST'), form.getByRole('button', { name: 'Create task' }).click()]);
  t.is(res.status(), 422);
  const problem = (await res.json()) as { errors: { field: string; message: string }[] };
  t.deepEqual(problem.errors.map((e) => e.field), ['priority']);
  await form.getByRole('alert').filter({ hasText: problem.errors[0]!.message }).waitFor();
  await shotAndAxe(page, t, 'task-priority-0');
  t.is((await call('/api/v1/tasks')).body.total, 0);
});

test.serial('tasks: one task edited in two tabs: the second save is told of the 409, nothing is overwritten', async (t) => {
  const task = (await call('/api/v1/tasks', { method: 'POST', json: { title: 'Shared task' } })).body as { id: string };
  const second = await web.context.newPage();
  recordApiRequests(second, web.apiRequests);
  try {
    for (const p of [page, second]) {
      await p.goto(`${kernel.webUrl}/tasks/${task.id}`);
      await p.getByRole('button', { name: 'Edit' }).click();
      await p.getByRole('form', { name: 'Edit task' }).waitFor();
    }
    const first = page.getByRole('form', { name: 'Edit task' });
    await first.getByLabel('Title').fill('Title from tab one');
    await first.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Title from tab one' }).waitFor();
    const other = second.getByRole('form', { name: 'Edit task' });
    await other.getByLabel('Title').fill('Title from tab two');
    await other.getByRole('button', { name: 'Save' }).click();
    await other.getByRole('alert').filter({ hasText: 'Someone else changed this task meanwhile' }).waitFor();
    t.is(await other.getByLabel('Title').inputValue(), 'Title from tab two', 'the second tab keeps its edits');
    await shotAndAxe(second, t, 'task-edit-conflict');
    const stored = (await call(`/api/v1/tasks/${task.id}`)).body as { title: string; version: number };
    t.is(stored.title, 'Title from tab one');
    // the person takes the other version: the form closes and the page shows it
    await other.getByRole('button', { name: 'Load their version' }).click();
    await second.getByRole('heading', { name: 'Title from tab one' }).waitFor();
    t.is((await call(`/api/v1/tasks/${task.id}`)).body.version, stored.version);
  } finally {
    await second.close();
  }
});

test.serial('tasks: an attachment over the upload limit is refused with the 413; no comment, no file kept', async (t) => {
  const task = (await call('/api/v1/tasks', { method: 'POST', json: { title: 'Task with a big file' } })).body as { id: string };
  await page.goto(`${kernel.webUrl}/tasks/${task.id}`);
  const form = page.getByRole('form', { name: 'New comment' });
  await form.getByLabel('Comment (Markdown)').fill('Here is the log');
  await form.getByLabel('Attachments').setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(UPLOAD_LIMIT + 1, 7) });
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/api/v1/tasks/${task.id}/attachments`)), form.getByRole('button', { name: 'Comment' }).click()]);
  t.is(res.status(), 413);
  const problem = (await res.json()) as { title: string; code: string };
  const alert = form.getByRole('alert');
  await alert.waitFor();
  const said = await alert.innerText();
  t.true(said.includes(problem.title) && said.includes(problem.code) && said.includes(res.headers()['x-request-id']!), said);
  t.is(problem.code, 'PAYLOAD_TOO_LARGE');
  t.is(await form.getByLabel('Comment (Markdown)').inputValue(), 'Here is the log', 'the comment stays to send again');
  await shotAndAxe(page, t, 'attachment-too-large');
  t.is((await call(`/api/v1/tasks/${task.id}/logs`)).body.items.length, 0);
  t.is((await call(`/api/v1/tasks/${task.id}/attachments`)).body.items.length, 0);
});

test.serial('runs: an approval by someone other than the run owner is refused with the 403, and the run stays paused', async (t) => {
  const admin = await call('/api/v1/users', { method: 'POST', json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, role: 'admin' } });
  t.is(admin.status, 201, admin.text);
  const wf = await call('/api/v1/workflows', { method: 'POST', json: { name: 'Owner approval', trigger_type: 'manual', steps: [
    { id: 'start', type: 'trigger', config: {}, next: ['gate'] },
    { id: 'gate', type: 'wait', name: 'Owner approval', config: { wait_type: 'approval' }, next: ['finish'] },
    { id: 'finish', type: 'end', config: {}, next: [] },
  ] } });
  t.is(wf.status, 201, wf.text);
  const started = await call(`/api/v1/workflows/${wf.body.id}/run`, { method: 'POST', json: { input: {} } });
  t.is(started.status, 202, started.text);
  const runId: string = started.body.run_id;
  const context = await web.browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const other = await context.newPage();
    recordApiRequests(other, web.apiRequests);
    await other.goto(`${kernel.webUrl}/runs/${runId}`);
    await signInThroughForm(other, ADMIN_EMAIL, ADMIN_PASSWORD);
    const decision = other.getByRole('form', { name: 'Decision' });
    await decision.waitFor();
    await decision.getByLabel('Comment').fill('approving for the owner');
    const [res] = await Promise.all([other.waitForResponse((r) => r.url().endsWith(`/api/v1/workflows/runs/${runId}/resume`)), decision.getByRole('button', { name: 'Approve' }).click()]);
    t.is(res.status(), 403);
    await decision.getByRole('alert').filter({ hasText: 'Only the owner of this run can decide its approval.' }).waitFor();
    await shotAndAxe(other, t, 'approval-forbidden');
    t.is((await call(`/api/v1/workflows/runs/${runId}`)).body.status, 'paused');
  } finally {
    await context.close();
  }
});

test.serial('every /api request of every tab is a path of /api/openapi.json', async (t) => {
  t.true(web.apiRequests.some((r) => r.startsWith('POST /api/v1/workflows/runs/')));
  t.deepEqual(await requestsOutsideOpenApi(web), []);
});
