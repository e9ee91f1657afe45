import test from 'ava';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { api, type TestKernel } from './helpers/kernel.ts';
import { startScriptedProvider, type ScriptedProvider } from './helpers/scripted-provider.ts';
import { eventually } from './helpers/eventually.ts';
import { requestsOutsideOpenApi, shotAndAxe, startWebE2e, type WebE2e } from './helpers/web-e2e.ts';

// The chat, agents, goals and plans pages end to end: the real service on embedded defaults
// with its model calls going to the scripted provider over real HTTP (MODEL_OPENAI_BASE_URL),
// the built app in Debian's Chromium. Screenshots to test/artifacts/, axe on each page, and
// every /api request the app made must be a path of /api/openapi.json.
const EMAIL = 'owner@agents.test';
const PASSWORD = 'a long enough test password';
const SECRET = 'sk-e2e-secret-0123456789abcdef';

let web: WebE2e;
let kernel: TestKernel;
let provider: ScriptedProvider;
let page: Page;
let token: string;
let workspaceId: string;
let agentId: string;

test.before(async (t) => {
  // a build of the app and a first embedded-database start, on a shared 2-core machine
  t.timeout(600_000);
  provider = await startScriptedProvider();
  web = await startWebE2e({
    email: EMAIL,
    password: PASSWORD,
    // the slow provider of the stop test is a key's base_url on loopback
    env: { MODEL_BASE_URL_ALLOW: '127.0.0.1/32', MODEL_OPENAI_BASE_URL: `${provider.url}/v1`, MODEL_ANTHROPIC_BASE_URL: provider.url, WORKFLOW_SWEEP_SECONDS: '1' },
  });
  ({ kernel, page, token } = web);
});
test.after.always(async () => {
  await web?.close();
  await provider?.close();
});

async function must(path: string, method: string, json: unknown, status = 201): Promise<any> {
  const res = await api(kernel.apiUrl, path, { method, token, json });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

test.serial('sign in; model keys: empty, create one (the secret is write-only), listed by its prefix', async (t) => {
  await page.goto(`${kernel.webUrl}/model-keys`);
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByLabel('Email').fill(EMAIL);
  await dialog.getByLabel('Password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByText('No model keys yet').waitFor();
  await shotAndAxe(page, t, 'model-keys-empty');
  await page.getByRole('button', { name: 'New key' }).click();
  const form = page.getByRole('form', { name: 'New model key' });
  await form.getByRole('button', { name: 'Save key' }).click();
  await t.notThrowsAsync(form.getByRole('alert').filter({ hasText: 'name' }).first().waitFor(), 'an empty form is refused naming the field');
  await form.getByLabel('Name', { exact: true }).fill('Scripted');
  await form.getByLabel('Secret key (write-only)').fill(SECRET);
  await form.getByLabel('Default model').fill('gpt-e2e');
  await form.getByLabel("The entity's default key").check();
  await form.getByRole('button', { name: 'Save key' }).click();
  await page.getByRole('cell', { name: 'Scripted default' }).waitFor();
  t.false((await page.content()).includes(SECRET), 'the secret is nowhere in the page');
  t.regex(await page.locator('tbody code').first().innerText(), /^sk-e2e…$/);
  await shotAndAxe(page, t, 'model-keys');
});

test.serial('agents: generate from a description, preview, save; the tools with their effective policy', async (t) => {
  const ws = await must('/api/v1/workspaces', 'POST', { name: 'Agents WS' });
  workspaceId = ws.id;
  await must(`/api/v1/workspaces/${workspaceId}/governance`, 'PUT', { rules: [{ tool: 'tasks', decision: 'ask' }] }, 200);
  await page.goto(`${kernel.webUrl}/agents`);
  await page.getByText('No agents yet.').waitFor();
  await shotAndAxe(page, t, 'agents-empty');
  provider.replies.push({ object: { name: 'Clerk', description: 'Files tasks for people.', instructions: 'You file tasks.', tools: ['tasks'], max_rounds: 5 } });
  await page.getByRole('button', { name: 'Generate from a description' }).click();
  await page.getByLabel('What should the agent do?').fill('An agent that files tasks');
  await page.getByRole('button', { name: 'Generate a draft' }).click();
  const preview = page.getByRole('form', { name: 'Generated agent' });
  await preview.waitFor();
  t.is(await preview.getByLabel('Name', { exact: true }).inputValue(), 'Clerk');
  t.is(await preview.getByLabel('Tools (names, separated by commas)').inputValue(), 'tasks');
  t.is((await api(kernel.apiUrl, '/api/v1/agents', { token })).body.total, 0, 'nothing is stored before saving');
  await shotAndAxe(page, t, 'agent-generate-preview');
  await preview.getByRole('combobox', { name: /^Workspace/ }).selectOption({ label: 'Agents WS' });
  await preview.getByRole('button', { name: 'Save agent' }).click();
  await page.getByRole('heading', { name: 'Clerk' }).waitFor();
  agentId = page.url().split('/').at(-1)!;
  const row = page.locator('tr', { has: page.locator('code', { hasText: /^tasks$/ }) });
  await row.getByText('asks a person').waitFor();
  await shotAndAxe(page, t, 'agent');
  await page.goto(`${kernel.webUrl}/agents`);
  await page.getByRole('link', { name: 'Clerk' }).waitFor();
  await shotAndAxe(page, t, 'agents');
});

test.serial('chat: a streamed reply with a tool call waiting for approval; approved in the page, the reply finishes live', async (t) => {
  await page.goto(`${kernel.webUrl}/chat`);
  await page.getByText('No conversations yet.').waitFor();
  await shotAndAxe(page, t, 'chat-empty');
  provider.replies.push({ chunks: ['I will ', 'file ', 'it.'], tool_calls: [{ id: 'call_t', name: 'tasks', arguments: { op: 'create', title: 'Order toner' } }] });
  provider.replies.push({ chunks: ['Filed ', 'the task.'] });
  const composer = page.getByRole('form', { name: 'Send a message' });
  await composer.getByLabel('Agent').selectOption({ label: 'Clerk' });
  await composer.getByLabel('Message').fill('Please order toner');
  await composer.getByRole('button', { name: 'Send' }).click();
  const approval = page.getByRole('form', { name: 'Tool approval' });
  await approval.waitFor();
  t.regex(await approval.innerText(), /tasks/);
  await page.locator('.message.live', { hasText: 'I will file it.' }).waitFor();
  await page.locator('.tool-call', { hasText: 'tasks' }).getByText('waits for approval').waitFor();
  t.regex(await page.getByTestId('announcer').innerText(), /waits for your approval to use tasks/);
  t.regex(page.url(), /\/chat\/[0-9a-f-]{36}$/, 'the new conversation got its address');
  await shotAndAxe(page, t, 'chat-approval');
  await approval.getByLabel('Comment (optional)').fill('go ahead');
  await approval.getByRole('button', { name: 'Approve' }).click();
  await page.locator('.message.live', { hasText: 'Filed the task.' }).waitFor();
  await page.getByText('Reply complete.').waitFor();
  await page.locator('.tool-call', { hasText: 'tasks' }).getByText('done').waitFor();
  t.regex(await page.getByTestId('announcer').innerText(), /reply is complete/);
  const tasks = await api(kernel.apiUrl, `/api/v1/tasks?workspace=${workspaceId}`, { token });
  t.true(tasks.body.items.some((x: { title: string }) => x.title === 'Order toner'), 'the approved tool call ran once');
  await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Please order toner' }).waitFor();
  await shotAndAxe(page, t, 'chat');
  // a reload shows the stored conversation
  await page.reload();
  await page.locator('.message-assistant', { hasText: 'Filed the task.' }).waitFor();
  t.is(await page.getByRole('form', { name: 'Tool approval' }).count(), 0);
});

/** An OpenAI-compatible provider whose streamed answer sends "Hello there", then a delta each time the test asks, never finishing. */
async function slowProvider() {
  let answer: ServerResponse | undefined;
  const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'gpt-slow', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('Hello'));
      res.write(chunk(' there'));
      answer = res;
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    more: () => answer?.write(chunk(' more')),
    close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }),
  };
}

test.serial('chat: stop ends a streaming reply; the partial answer is kept as interrupted', async (t) => {
  const slow = await slowProvider();
  t.teardown(() => slow.close());
  const key = await must('/api/v1/api-keys', 'POST', { name: 'Slow', provider: 'openai', api_key: 'sk-slow-0123456789abcdef', default_model: 'gpt-slow', base_url: `${slow.url}/v1` });
  await must('/api/v1/agents', 'POST', { name: 'Slow talker', workspace_id: workspaceId, api_key_id: key.id, tools: [] });
  await page.goto(`${kernel.webUrl}/chat`);
  const composer = page.getByRole('form', { name: 'Send a message' });
  await composer.getByLabel('Agent').selectOption({ label: 'Slow talker' });
  await composer.getByLabel('Message').fill('Talk to me');
  await composer.getByRole('button', { name: 'Send' }).click();
  await page.locator('.message.live', { hasText: 'Hello there' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByText('Stopped; the partial answer is kept.').waitFor();
  t.regex(await page.getByTestId('announcer').innerText(), /Stopped/);
  const conversation = page.url().split('/').at(-1)!;
  // the run notices the interrupt at its next delta
  const settled = await eventually(async () => {
    slow.more();
    const list = await api(kernel.apiUrl, `/api/v1/chat/conversations/${conversation}/messages`, { token });
    const reply = list.body.items?.find((m: { role: string }) => m.role === 'assistant');
    return reply && reply.status !== 'streaming' ? reply : undefined;
  }, { timeoutMs: 30_000 });
  t.is(settled.status, 'interrupted');
  await page.reload();
  await page.locator('.message-assistant', { hasText: 'Hello there' }).getByText('interrupted').waitFor();
  await shotAndAxe(page, t, 'chat-stopped');
});

test.serial('chat: an attachment over the size limit is refused (413) and the message stays to send again', async (t) => {
  await page.goto(`${kernel.webUrl}/chat`);
  const composer = page.getByRole('form', { name: 'Send a message' });
  await composer.getByLabel('Message').fill('Read this big file');
  await composer.getByLabel('Files (up to 5)').setInputFiles({ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(11 * 1024 * 1024, 97) });
  const before = provider.requests.length;
  await composer.getByRole('button', { name: 'Send' }).click();
  const note = composer.getByRole('alert').filter({ hasText: /PAYLOAD_TOO_LARGE|too large/i });
  await note.waitFor();
  t.is(await composer.getByLabel('Message').inputValue(), 'Read this big file');
  t.is(provider.requests.length, before, 'no model call');
  await shotAndAxe(page, t, 'chat-refused');
});

test.serial('agent executions list the chat run', async (t) => {
  await page.goto(`${kernel.webUrl}/executions?agent_id=${agentId}`);
  await page.getByRole('heading', { name: 'Agent executions' }).waitFor();
  await page.locator('td', { hasText: 'chat' }).first().waitFor();
  await shotAndAxe(page, t, 'executions');
});

test.serial('goals: empty, create with a metric (a bad target named), detail', async (t) => {
  await page.goto(`${kernel.webUrl}/goals`);
  await page.getByText('No goals match.').waitFor();
  await shotAndAxe(page, t, 'goals-empty');
  await page.getByRole('button', { name: 'New goal' }).click();
  const form = page.getByRole('form', { name: 'New goal' });
  await form.getByRole('combobox', { name: /^Workspace/ }).selectOption({ label: 'Agents WS' });
  await form.getByLabel('Objective', { exact: true }).fill('Answer every ticket within a day');
  await form.getByLabel('Metric 1 name').fill('median hours');
  await form.getByLabel('Target', { exact: true }).fill('soon');
  await form.getByRole('button', { name: 'Create goal' }).click();
  await t.notThrowsAsync(form.getByRole('alert').filter({ hasText: 'target' }).first().waitFor(), 'a target that is not a number is refused naming it');
  await form.getByLabel('Target', { exact: true }).fill('24');
  await form.getByLabel('Met when').selectOption('decrease');
  await form.getByRole('button', { name: 'Create goal' }).click();
  await page.getByRole('heading', { name: /Answer every ticket within a day/ }).waitFor();
  await page.getByRole('cell', { name: 'median hours' }).waitFor();
  await shotAndAxe(page, t, 'goal');
  await page.goto(`${kernel.webUrl}/goals/0197c0de-0000-7000-8000-000000000000`);
  await page.getByRole('heading', { name: 'Not found' }).waitFor();
});

test.serial('plans: a task run proposes a plan; its steps are shown, approved in the page, the plan completes', async (t) => {
  provider.replies.push({ text: 'Here is my plan.', tool_calls: [{ name: 'propose_plan', arguments: { summary: 'Replace the toner', steps: [{ title: 'Order toner' }, { title: 'Install it', detail: 'Follow the manual.' }] } }] });
  const task = await must('/api/v1/tasks', 'POST', { title: 'Printer out of toner', workspace_id: workspaceId, assignee: { type: 'agent', id: agentId } });
  await eventually(async () => (await api(kernel.apiUrl, `/api/v1/plans?task_id=${task.id}`, { token })).body.items?.length > 0, { timeoutMs: 60_000 });
  await page.goto(`${kernel.webUrl}/plans`);
  const card = page.locator('li.plan', { hasText: 'Replace the toner' });
  await card.waitFor();
  t.deepEqual(await card.locator('.steps li').allInnerTexts(), ['to do Order toner', 'to do Install it\nFollow the manual.']);
  await shotAndAxe(page, t, 'plans');
  provider.replies.push({ text: '', tool_calls: [{ name: 'update_plan_step', arguments: { index: 0, status: 'done' } }, { name: 'update_plan_step', arguments: { index: 1, status: 'done' } }] });
  provider.replies.push({ text: 'Done.' });
  await card.getByLabel('Comment').fill('ok');
  await card.getByRole('button', { name: 'Approve plan' }).click();
  await card.locator('h3 .badge', { hasText: /approved|completed/ }).waitFor();
  t.regex(await page.getByTestId('announcer').innerText(), /Plan (approved|completed)/);
  await card.locator('h3 .badge', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
  t.is(await card.getByRole('button', { name: 'Approve plan' }).count(), 0, 'a decided plan has no decision buttons');
});

test.serial('delete an agent in the in-app confirmation (never a browser dialog); its page is then not found', async (t) => {
  let native = 0;
  const onDialog = (d: { dismiss(): Promise<void> }) => void (native++, d.dismiss());
  page.on('dialog', onDialog);
  t.teardown(() => page.off('dialog', onDialog));
  await page.goto(`${kernel.webUrl}/agents`);
  await page.getByRole('link', { name: 'Slow talker' }).click();
  await page.getByRole('heading', { name: 'Slow talker' }).waitFor();
  const address = page.url();
  const agent = address.split('/').at(-1)!;
  const opener = page.getByRole('button', { name: 'Delete', exact: true });
  const confirm = page.getByRole('dialog', { name: 'Delete the agent "Slow talker"?' });
  // Cancel (focused on open) and Escape close it, focus goes back to the button, nothing is deleted
  await opener.click();
  await confirm.waitFor();
  const cancel = confirm.getByRole('button', { name: 'Cancel' });
  t.true(await cancel.evaluate((el) => el === document.activeElement), 'focus moves into the dialog');
  t.is(await confirm.getByRole('textbox').count(), 0, 'nothing to type for an agent');
  await shotAndAxe(page, t, 'agent-delete-confirm');
  await cancel.click();
  await confirm.waitFor({ state: 'detached' });
  t.true(await opener.evaluate((el) => el === document.activeElement), 'focus returns to the button');
  await opener.click();
  await confirm.waitFor();
  await page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  t.is(page.url(), address, 'cancelling deletes nothing');
  t.is(web.apiRequests.filter((r) => r === `DELETE /api/v1/agents/${agent}`).length, 0);
  await opener.click();
  await confirm.getByRole('button', { name: 'Delete this agent' }).click();
  await page.getByRole('heading', { name: 'Agents' }).waitFor();
  await page.getByRole('link', { name: 'Clerk' }).waitFor();
  t.is(await page.getByRole('link', { name: 'Slow talker' }).count(), 0);
  t.regex(await page.getByTestId('announcer').innerText(), /Agent Slow talker deleted/);
  t.is(web.apiRequests.filter((r) => r === `DELETE /api/v1/agents/${agent}`).length, 1);
  t.is(native, 0, 'no browser dialog was opened');
  await page.goto(address);
  await page.getByRole('heading', { name: 'Not found' }).waitFor();
  await shotAndAxe(page, t, 'agent-not-found');
});

test.serial('delete a model key and a conversation in the in-app confirmation (never a browser dialog)', async (t) => {
  let native = 0;
  const onDialog = (d: { dismiss(): Promise<void> }) => void (native++, d.dismiss());
  page.on('dialog', onDialog);
  t.teardown(() => page.off('dialog', onDialog));
  const deletes = (prefix: string) => web.apiRequests.filter((r) => r.startsWith(`DELETE ${prefix}`)).length;

  // the slow talker's key: Escape cancels, then confirming deletes it
  await page.goto(`${kernel.webUrl}/model-keys`);
  const keyButton = page.getByRole('button', { name: 'Delete key Slow' });
  await keyButton.click();
  const keyConfirm = page.getByRole('dialog', { name: 'Delete the key "Slow"?' });
  await keyConfirm.waitFor();
  await shotAndAxe(page, t, 'model-key-delete-confirm');
  await page.keyboard.press('Escape');
  await keyConfirm.waitFor({ state: 'detached' });
  t.is(deletes('/api/v1/api-keys/'), 0, 'Escape deletes nothing');
  await keyButton.click();
  await keyConfirm.getByRole('button', { name: 'Delete this key' }).click();
  await keyButton.waitFor({ state: 'detached' });
  await keyConfirm.waitFor({ state: 'detached' });
  await page.getByRole('cell', { name: 'Scripted default' }).waitFor();
  t.is(deletes('/api/v1/api-keys/'), 1);
  t.false((await api(kernel.apiUrl, '/api/v1/api-keys', { token })).body.items.some((k: { name: string }) => k.name === 'Slow'));

  // the stopped conversation: Cancel keeps it, confirming deletes it
  await page.goto(`${kernel.webUrl}/chat`);
  const list = page.getByRole('navigation', { name: 'Conversations' });
  await list.getByRole('link', { name: 'Talk to me' }).waitFor();
  const chatButton = list.getByRole('button', { name: 'Delete conversation Talk to me' });
  await chatButton.click();
  const chatConfirm = page.getByRole('dialog', { name: 'Delete the conversation "Talk to me"?' });
  await chatConfirm.getByRole('button', { name: 'Cancel' }).click();
  await chatConfirm.waitFor({ state: 'detached' });
  t.is(deletes('/api/v1/chat/conversations/'), 0, 'Cancel deletes nothing');
  await chatButton.click();
  await chatConfirm.getByRole('button', { name: 'Delete this conversation' }).click();
  await list.getByRole('link', { name: 'Talk to me' }).waitFor({ state: 'detached' });
  await chatConfirm.waitFor({ state: 'detached' });
  await list.getByRole('link', { name: 'Please order toner' }).waitFor();
  t.is(deletes('/api/v1/chat/conversations/'), 1);
  t.is(native, 0, 'no browser dialog was opened');
});

test.serial('every /api request the app made is a path of /api/openapi.json', async (t) => {
  t.true(web.apiRequests.some((r) => r === 'POST /api/v1/chat/stream'));
  t.true(web.apiRequests.some((r) => /^GET \/api\/v1\/chat\/runs\/[^/]+\/events$/.test(r)));
  t.deepEqual(await requestsOutsideOpenApi(web), []);
});

