import test from 'ava';
import type { Page } from 'playwright-core';
import { api, type TestKernel } from './helpers/kernel.ts';
import { requestsOutsideOpenApi, shotAndAxe, signInThroughForm, startWebE2e, type WebE2e } from './helpers/web-e2e.ts';

// The pages around the work itself, end to end on the real service (embedded defaults, the
// built app, Debian's Chromium): users (invite, role change), one's own password, sign-out,
// a workspace's edit, archive and confirmed delete, a task from a template, and the task
// list's category and parent filters. Screenshots and axe on each page.
const EMAIL = 'owner@admin.test';
const PASSWORD = 'a long enough test password';
const NEW_PASSWORD = 'a brand new long password';
const MEMBER = 'member@admin.test';

let web: WebE2e;
let kernel: TestKernel;
let page: Page;
let token: string;

test.before(async (t) => {
  t.timeout(600_000);
  web = await startWebE2e({ email: EMAIL, password: PASSWORD });
  ({ kernel, page, token } = web);
  await page.goto(`${kernel.webUrl}/`);
  await signInThroughForm(page, EMAIL, PASSWORD);
});
test.after.always(async () => {
  await web?.close();
});

function call(path: string, init: Parameters<typeof api>[2] = {}) {
  return api(kernel.apiUrl, path, { token, ...init });
}

test.serial('users: invite a member, then make them an admin', async (t) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
  await page.getByRole('heading', { name: 'Users' }).waitFor();
  await page.getByRole('cell', { name: EMAIL }).waitFor();
  await page.getByLabel('Email').fill(MEMBER);
  await page.getByLabel('Name').fill('Mia Member');
  await page.getByLabel('Initial password').fill('a member password, long');
  await page.getByRole('button', { name: 'Invite' }).click();
  const role = page.getByLabel(`Role of ${MEMBER}`);
  await role.waitFor();
  t.is(await role.inputValue(), 'member');
  t.is(await page.getByLabel('Email').inputValue(), '', 'the invite form is cleared');
  await shotAndAxe(page, t, 'users');
  const users = async () => ((await call('/api/v1/users?limit=200')).body.items as { email: string; role: string }[]).find((u) => u.email === MEMBER);
  const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/api/v1/users/')), role.selectOption('admin')]);
  t.is(res.status(), 200, await res.text());
  // the list is read again after the change: the select then shows the stored role
  await page.waitForFunction((label) => document.querySelector<HTMLSelectElement>(`select[aria-label="${label}"]`)?.value === 'admin', `Role of ${MEMBER}`);
  t.is((await users())?.role, 'admin');
});

test.serial('account: a wrong current password is refused; the right one changes it', async (t) => {
  await page.locator('header .user a').click();
  await page.getByRole('heading', { name: 'Account' }).waitFor();
  await page.getByText(EMAIL).first().waitFor();
  await page.getByLabel('Current password').fill('not my password at all');
  await page.getByLabel(/^New password/).fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByRole('alert').waitFor();
  await shotAndAxe(page, t, 'account-refused');
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
  t.is(await page.getByLabel('Current password').inputValue(), '');
  await shotAndAxe(page, t, 'account');
  t.is((await api(kernel.apiUrl, '/api/v1/auth/login', { method: 'POST', json: { email: EMAIL, password: PASSWORD } })).status, 401, 'the old password no longer works');
  const login = await api(kernel.apiUrl, '/api/v1/auth/login', { method: 'POST', json: { email: EMAIL, password: NEW_PASSWORD } });
  t.is(login.status, 200);
  token = login.body.access_token;
});

test.serial('sign out: the session is revoked and the sign-in form opens; signing in again goes on', async (t) => {
  const session = (await page.context().cookies()).find((c) => c.httpOnly);
  t.truthy(session);
  t.is((await api(kernel.apiUrl, '/api/v1/auth/me', { token: session!.value })).status, 200);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('dialog', { name: 'Sign in' }).waitFor();
  t.is((await api(kernel.apiUrl, '/api/v1/auth/me', { token: session!.value })).status, 401, 'the token is revoked');
  t.false((await page.context().cookies()).some((c) => c.value === session!.value), 'the cookie is gone');
  await shotAndAxe(page, t, 'signed-out');
  await signInThroughForm(page, EMAIL, NEW_PASSWORD);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  t.pass();
});

test.serial('workspaces: edit, archive, and delete for good only once confirmed', async (t) => {
  const ws = await call('/api/v1/workspaces', { method: 'POST', json: { name: 'Old name' } });
  t.is(ws.status, 201, ws.text);
  await page.goto(`${kernel.webUrl}/`);
  const row = (name: string) => page.locator('li.card', { has: page.getByRole('heading', { name }) });
  await row('Old name').getByRole('button', { name: 'Edit' }).click();
  // the only workspace: its card holds the form while editing
  const card = page.locator('ul.cards > li.card');
  t.is(await card.count(), 1);
  await card.getByLabel('Name').fill('New name');
  await card.getByLabel('Category').fill('ops');
  await shotAndAxe(page, t, 'workspace-edit');
  await card.getByRole('button', { name: 'Save' }).click();
  await row('New name').getByText('ops').waitFor();
  t.like((await call(`/api/v1/workspaces/${ws.body.id}`)).body, { name: 'New name', category: 'ops' });
  await row('New name').getByRole('button', { name: 'Archive' }).click();
  await row('New name').waitFor({ state: 'detached' });
  t.truthy((await call(`/api/v1/workspaces/${ws.body.id}`)).body.archived_at);
  await page.getByLabel('Show archived').check();
  const archived = row('New name archived');
  await archived.waitFor();
  await shotAndAxe(page, t, 'workspaces-archived');
  // the in-app confirmation (never window.confirm) names the workspace; Escape cancels it,
  // focus goes back to the button, and nothing is deleted
  let native = 0;
  page.on('dialog', (d) => void (native++, d.dismiss()));
  const opener = archived.getByRole('button', { name: 'Delete for good' });
  await opener.click();
  const confirm = page.getByRole('dialog', { name: 'Delete the workspace "New name"?' });
  const typed = confirm.getByRole('textbox', { name: 'Type New name to confirm' });
  await typed.waitFor();
  t.true(await typed.evaluate((el) => el === document.activeElement), 'focus moves into the dialog');
  await shotAndAxe(page, t, 'workspace-delete-confirm');
  await page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  t.true(await opener.evaluate((el) => el === document.activeElement), 'focus returns to the button');
  // from the keyboard: open it, type the name, Enter deletes
  await page.keyboard.press('Enter');
  await typed.waitFor();
  t.true(await confirm.getByRole('button', { name: 'Delete this workspace' }).isDisabled(), 'nothing to confirm before the name is typed');
  await page.keyboard.type('New name');
  await page.keyboard.press('Enter');
  await archived.waitFor({ state: 'detached' });
  t.is(native, 0, 'no browser dialog was opened');
  t.is((await call(`/api/v1/workspaces/${ws.body.id}`)).status, 404);
  // one DELETE archived it, one deleted it: the cancelled confirmation sent none
  t.is(web.apiRequests.filter((r) => r === `DELETE /api/v1/workspaces/${ws.body.id}`).length, 2);
});

test.serial('tasks: one from a template, its variables asked for and filled in', async (t) => {
  const template = await call('/api/v1/tasks/templates', { method: 'POST', json: { name: 'Customer call', title: 'Call {{customer}}', description: 'About {{topic}}' } });
  t.is(template.status, 201, template.text);
  await page.goto(`${kernel.webUrl}/tasks`);
  await page.getByRole('button', { name: 'New task' }).click();
  const form = page.getByRole('form', { name: 'New task' });
  await form.getByLabel('From template').selectOption({ label: 'Customer call' });
  await form.getByRole('textbox', { name: 'customer' }).fill('Acme');
  await form.getByRole('textbox', { name: 'topic' }).fill('renewal');
  t.is(await form.getByLabel('Title').count(), 0, 'the title comes from the template');
  await form.getByLabel('Priority').selectOption('2');
  await shotAndAxe(page, t, 'task-from-template');
  await form.getByRole('button', { name: 'Create task' }).click();
  await page.getByRole('link', { name: 'Call Acme' }).waitFor();
  const task = ((await call('/api/v1/tasks?q=Acme')).body.items as { title: string; description: string; priority: number }[])[0];
  t.like(task, { title: 'Call Acme', description: 'About renewal', priority: 2 });
});

test.serial('tasks: the category and parent-task filters', async (t) => {
  const category = await call('/api/v1/tasks/categories', { method: 'POST', json: { name: 'Billing' } });
  t.is(category.status, 201, category.text);
  const parent = (await call('/api/v1/tasks', { method: 'POST', json: { title: 'Parent task' } })).body;
  await call('/api/v1/tasks', { method: 'POST', json: { title: 'Billing child', category_id: category.body.id, parent_id: parent.id } });
  await call('/api/v1/tasks', { method: 'POST', json: { title: 'Other child', parent_id: parent.id } });
  await page.goto(`${kernel.webUrl}/tasks`);
  await page.getByRole('link', { name: 'Call Acme' }).waitFor();
  await page.getByLabel('Category').selectOption({ label: 'Billing' });
  await page.getByRole('link', { name: 'Call Acme' }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Billing child' }).waitFor();
  t.deepEqual(await page.locator('tbody tr td:first-child').allInnerTexts(), ['Billing child']);
  await page.getByLabel('Category').selectOption('');
  // from the parent's page to its subtasks as a list
  await page.goto(`${kernel.webUrl}/tasks/${parent.id}`);
  await page.getByRole('link', { name: 'List the subtasks with filters and sorting' }).click();
  await page.waitForURL(/parent_id=/);
  await page.getByRole('link', { name: 'Other child' }).waitFor();
  t.deepEqual((await page.locator('tbody tr td:first-child').allInnerTexts()).sort(), ['Billing child', 'Other child']);
  t.is(await page.getByLabel('Subtasks of (task id)').inputValue(), parent.id);
  await shotAndAxe(page, t, 'tasks-subtasks');
});

test.serial('every /api request is a path of /api/openapi.json', async (t) => {
  t.true(web.apiRequests.some((r) => r.startsWith('PUT /api/v1/users/')));
  t.deepEqual(await requestsOutsideOpenApi(web), []);
});
