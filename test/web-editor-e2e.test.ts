import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { api, type TestKernel } from './helpers/kernel.ts';
import { ARTIFACTS, recordApiRequests, requestsOutsideOpenApi, shotAndAxe, signInThroughForm, startWebE2e, type WebE2e } from './helpers/web-e2e.ts';
import { captureEditorFixtures, FIXTURE_FILES } from '../web/scripts/editor-fixtures.ts';

// The workflow editor end to end (test/web-e2e.test.ts covers the rest of the app the same way):
// the real service on embedded defaults, the built app, Debian's Chromium. A webhook -> transform
// -> respond workflow is built by adding nodes and filling their generated forms, saved through
// a 422 the form cannot foresee and a revoked token, bound on the bindings page, and called
// with fetch while the runs page lists its run without a reload.
const EMAIL = 'owner@editor.test';
const PASSWORD = 'a long enough editor password';

let web: WebE2e;
let kernel: TestKernel;
let context: BrowserContext;
let page: Page;
let token: string;
/** the webhook workflow the first test builds */
let workflowId: string;

test.before(async (t) => {
  t.timeout(600_000);
  web = await startWebE2e({ email: EMAIL, password: PASSWORD, viewport: { width: 1500, height: 1000 } });
  ({ kernel, context, page, token } = web);
});
test.afterEach.always(async (t) => {
  // a failed step leaves a picture of the page behind it
  if (!t.passed && page) await page.screenshot({ path: join(ARTIFACTS, `failed-${t.title.slice(0, 40).replace(/\W+/g, '-')}.png`), fullPage: true }).catch(() => undefined);
});
test.after.always(async () => {
  await web?.close();
});

const signIn = (): Promise<void> => signInThroughForm(page, EMAIL, PASSWORD);

const node = (id: string) => page.locator('.react-flow__node', { has: page.locator('.step-node-type', { hasText: `· ${id}` }) });
const panel = () => page.locator('aside.step-panel');

async function select(id: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Steps' }).locator(`button[data-step-id="${id}"]`).click();
  await panel().locator('h2', { hasText: 'step' }).waitFor();
  await page.waitForFunction((want) => (document.querySelector('aside.step-panel input[aria-describedby="step-id-problems"]') as HTMLInputElement | null)?.value === want, id);
}

test.serial('build webhook -> transform -> respond from the palette and generated forms, and save', async (t) => {
  await page.goto(`${kernel.webUrl}/workflows`);
  await signIn();
  await page.getByRole('form', { name: 'New workflow' }).getByLabel('Name').fill('Echo hook');
  await page.getByRole('button', { name: 'Create and edit' }).click();
  await page.getByRole('complementary', { name: 'Node types' }).waitFor();

  // the new workflow's manual trigger goes; a webhook comes by click
  await select('start');
  await panel().getByRole('button', { name: 'Delete step' }).click();
  await page.getByRole('button', { name: 'Add Webhook' }).click();
  // transform: found by search and added from the keyboard
  await page.getByLabel('Search node types').fill('transform');
  await page.getByRole('button', { name: 'Add Transform' }).focus();
  await page.keyboard.press('Enter');
  await page.getByLabel('Search node types').fill('');
  // respond: dragged onto the canvas
  await page.getByRole('button', { name: 'Add Respond to webhook' }).dragTo(page.getByTestId('editor-canvas'), { targetPosition: { x: 600, y: 380 } });
  await node('respond').waitFor();

  // webhook -> transform through the next field (the keyboard's way)
  await select('webhook');
  await panel().getByRole('group', { name: 'Next steps' }).getByLabel(/\(transform\)/).check();
  // transform -> respond by dragging from the source handle to the target handle
  await page.getByRole('button', { name: 'Fit View' }).click();
  await node('transform').locator('.react-flow__handle.source').dragTo(node('respond').locator('.react-flow__handle.target'));
  await page.locator('.react-flow__edge').nth(1).waitFor();
  t.is(await page.locator('.react-flow__edge').count(), 2);

  // the transform's free-form `set` is a JSON box; respond's status is a number field checked as typed
  await select('transform');
  await panel().getByLabel(/^set/).fill('{"echo": "{{trigger.body.msg}}", "via": "editor"}');
  await select('respond');
  const status = panel().getByLabel(/^status/);
  await status.fill('99');
  await panel().getByText('must be >= 100').waitFor();
  await node('respond').getByText(/⚠ 1 problem/).waitFor();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'Not saved: 1 problem' }).waitFor();
  await status.fill('201');
  await panel().getByLabel(/^body/).fill('{{transform.output}}');
  await shotAndAxe(page, t, 'editor');

  // a problem the form cannot foresee: a second entry step. The server's 422 lands on both nodes
  await page.getByRole('button', { name: 'Add Trigger' }).click();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await node('trigger').getByText(/⚠ 1 problem/).waitFor();
  await node('webhook').getByText(/⚠ 1 problem/).waitFor();
  await select('trigger');
  await panel().locator('#step-type-problems').getByText(/exactly one entry step/).waitFor();
  await shotAndAxe(page, t, 'editor-422');
  await panel().getByRole('button', { name: 'Delete step' }).click();

  // the session is revoked mid-edit: Save asks to sign in again, then goes through with the graph intact
  const cookie = (await context.cookies()).find((c) => c.httpOnly);
  t.truthy(cookie);
  t.is((await api(kernel.apiUrl, '/api/v1/auth/logout', { method: 'POST', token: cookie!.value })).status < 300, true);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await signIn();
  await page.getByText('Saved · version 2').waitFor();
  workflowId = page.url().split('/').pop()!;
  const saved = (await api(kernel.apiUrl, `/api/v1/workflows/${workflowId}`, { token })).body;
  t.deepEqual(saved.steps.map((s: { id: string; next: string[] }) => [s.id, s.next]), [['webhook', ['transform']], ['transform', ['respond']], ['respond', []]]);
  t.true(saved.steps.every((s: { position?: { x: number } }) => typeof s.position?.x === 'number'), 'positions are saved');
});

test.serial('run this node: one step alone, nothing stored', async (t) => {
  await select('transform');
  const run = panel().locator('details.run-node');
  await run.locator('summary').click();
  await run.getByLabel(/^Input/).fill('{"body": {"msg": "solo"}}');
  await run.getByRole('button', { name: 'Run node' }).click();
  await run.getByText('"echo": "solo"').waitFor();
  t.pass();
});

test.serial('markup in a step name is shown as text, never run', async (t) => {
  await select('transform');
  const hostile = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> javascript:alert(1)';
  await panel().getByLabel('Name', { exact: true }).fill(hostile);
  await node('transform').getByText(hostile).waitFor();
  t.is(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
  t.is(await page.locator('.react-flow img, .step-outline img').count(), 0);
});

test.serial('bound through the bindings page, the webhook answers what respond says, and its run is listed live', async (t) => {
  const ws = await api(kernel.apiUrl, '/api/v1/workspaces', { method: 'POST', token, json: { name: 'Hooks' } });
  t.is(ws.status, 201, ws.text);
  await page.goto(`${kernel.webUrl}/bindings?workspace=${ws.body.id}`);
  await page.getByRole('heading', { name: 'Bindings' }).waitFor();
  await page.getByRole('button', { name: 'New binding' }).click();
  const form = page.getByRole('form', { name: 'New binding' });
  await form.getByLabel('Workflow').selectOption(workflowId);
  await form.getByLabel('Trigger').selectOption('webhook');
  await form.getByRole('button', { name: 'Create binding' }).click();
  const shown = page.getByTestId('webhook-url');
  await shown.waitFor();
  const hook = new URL(await shown.innerText());
  t.regex(hook.pathname, /^\/api\/v1\/workflows\/webhook\/\S+$/);
  await page.getByRole('button', { name: 'I have stored it' }).click();

  // the runs page is open (and stays: no reload) when the webhook is called
  await page.goto(`${kernel.webUrl}/runs`);
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  await page.getByText('No runs match.').or(page.locator('table')).first().waitFor();
  await page.evaluate(() => ((window as unknown as { __samePage?: boolean }).__samePage = true));
  const res = await fetch(`${kernel.apiUrl}${hook.pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ msg: 'hello' }) });
  t.is(res.status, 201);
  t.deepEqual(await res.json(), { echo: 'hello', via: 'editor' });
  const runs = (await api(kernel.apiUrl, `/api/v1/workflows/runs?workflow_id=${workflowId}`, { token })).body as { items: { id: string; trigger_type: string }[] };
  t.is(runs.items.length, 1);
  t.is(runs.items[0]!.trigger_type, 'webhook');
  const row = page.locator('tr', { has: page.getByRole('link', { name: `Run ${runs.items[0]!.id}` }) });
  await row.getByText('webhook').waitFor();
  await row.getByText('completed').waitFor();
  t.true(await page.evaluate(() => (window as unknown as { __samePage?: boolean }).__samePage === true), 'listed without a reload');
  t.regex(await page.getByTestId('announcer').innerText(), new RegExp(`New run ${runs.items[0]!.id.slice(0, 8)}`));
  await shotAndAxe(page, t, 'runs-webhook');
  // the binding filter keeps it; the subworkflow trigger has none
  const filters = page.locator('form.filters');
  const bindingId = (await api(kernel.apiUrl, `/api/v1/workflows/bindings?workspace_id=${ws.body.id}`, { token })).body.items[0].id as string;
  await filters.getByLabel('Binding').selectOption(bindingId);
  await page.waitForURL(/binding_id=/);
  await row.waitFor();
  await filters.getByLabel('Trigger').selectOption('subworkflow');
  await page.getByText('No runs match.').waitFor();
  t.true(web.apiRequests.includes('GET /api/v1/workflows/runs'));
});

test.serial('an API-made definition is laid out automatically; its run is drawn with live statuses', async (t) => {
  const wf = await api(kernel.apiUrl, '/api/v1/workflows', {
    method: 'POST', token,
    json: { name: 'Laid out', steps: [
      { id: 'start', type: 'trigger', next: ['gate'] },
      { id: 'gate', type: 'wait', name: 'Approval', config: { wait_type: 'approval' }, next: ['finish'] },
      { id: 'finish', type: 'end', next: [] },
    ] },
  });
  t.is(wf.status, 201, wf.text);
  await page.goto(`${kernel.webUrl}/workflows/${wf.body.id}`);
  await node('finish').waitFor();
  const [a, b] = [await node('start').boundingBox(), await node('finish').boundingBox()];
  t.true(a!.x + 100 < b!.x, 'dagre puts the steps left to right, not on top of each other');
  await page.getByRole('button', { name: 'Run now' }).click();
  const graph = page.getByTestId('run-graph');
  await graph.locator('.step-node', { hasText: 'Approval' }).getByText('waiting').waitFor();
  await shotAndAxe(page, t, 'run-graph');
  const decision = page.getByRole('form', { name: 'Decision' });
  await decision.getByLabel('Comment').fill('fine');
  await decision.getByRole('button', { name: 'Approve' }).click();
  await graph.locator('.step-node', { hasText: 'finish' }).getByText('completed').waitFor();
  await graph.locator('.step-node', { hasText: 'Approval' }).getByText('completed').waitFor();
});

test.serial('keyboard only, in a session of its own: a condition added from the palette, each branch wired to its own step, saved', async (t) => {
  // its own browser context and sign-in: the first test revokes the shared page's session
  const own = await web.browser.newContext({ viewport: { width: 1500, height: 1000 } });
  const kb = await own.newPage();
  recordApiRequests(kb, web.apiRequests);
  try {
    await kb.goto(`${kernel.webUrl}/workflows`);
    await signInThroughForm(kb, EMAIL, PASSWORD);
    const press = async (target: ReturnType<Page['locator']>, key: string) => {
      await target.focus();
      await kb.keyboard.press(key);
    };
    await kb.getByRole('form', { name: 'New workflow' }).getByLabel('Name').focus();
    await kb.keyboard.type('Keyboard branches');
    await kb.keyboard.press('Enter');
    const palette = kb.getByRole('complementary', { name: 'Node types' });
    await palette.waitFor();
    const stepPanel = kb.locator('aside.step-panel');
    const outline = kb.getByRole('navigation', { name: 'Steps' });
    const selectStep = async (id: string) => {
      await press(outline.locator(`button[data-step-id="${id}"]`), 'Enter');
      await kb.waitForFunction((want) => (document.querySelector('aside.step-panel input[aria-describedby="step-id-problems"]') as HTMLInputElement | null)?.value === want, id);
    };

    // two End steps and a Condition, each added from the palette with Enter (a new step is selected)
    const search = palette.getByLabel('Search node types');
    await search.focus();
    await kb.keyboard.type('end');
    await press(palette.getByRole('button', { name: /^Add End\b/ }), 'Enter');
    await outline.locator('button[data-step-id="end"]').waitFor();
    await press(palette.getByRole('button', { name: /^Add End\b/ }), 'Enter');
    await outline.locator('button[data-step-id="end_2"]').waitFor();
    await search.focus();
    await kb.keyboard.press('Control+A');
    await kb.keyboard.type('condition');
    await press(palette.getByRole('button', { name: /^Add Condition\b/ }), 'Enter');
    await outline.locator('button[data-step-id="condition"]').waitFor();

    // the manual trigger goes to the condition: its tick in Next steps, ticked with Space
    await selectStep('start');
    await press(stepPanel.getByRole('group', { name: 'Next steps' }).getByRole('checkbox', { name: /\(condition\)/ }), 'Space');
    await outline.locator('button[data-step-id="start"]', { hasText: '→ condition' }).waitFor();

    // the condition: its expression typed, each branch chosen in its own select with the arrow keys
    await selectStep('condition');
    await stepPanel.getByLabel(/^expression/).focus();
    await kb.keyboard.press('Control+A');
    await kb.keyboard.type('{{trigger.ok}}');
    const next = stepPanel.getByRole('group', { name: 'Next steps' });
    const choose = async (branch: string, target: string) => {
      const box = next.getByRole('combobox', { name: `Branch ${branch}` });
      await box.focus();
      for (let i = 0; i < 6 && (await box.inputValue()) !== target; i++) await kb.keyboard.press('ArrowDown');
      t.is(await box.inputValue(), target, `branch ${branch}`);
      await kb.getByTestId('announcer').getByText(`condition: branch ${branch} now goes to ${target}.`).waitFor();
    };
    await choose('true', 'end');
    await choose('false', 'end_2');
    t.true(await next.getByRole('checkbox', { name: /\(end\)/ }).isChecked());
    t.true(await next.getByRole('checkbox', { name: /\(end_2\)/ }).isChecked());
    await kb.locator('.react-flow__edge').nth(2).waitFor();
    t.is(await kb.locator('.react-flow__edge').count(), 3, 'start -> condition and one edge per branch');
    await shotAndAxe(kb, t, 'editor-keyboard-branches');

    await press(kb.getByRole('button', { name: 'Save', exact: true }), 'Enter');
    await kb.getByText('Saved · version 2').waitFor();
    const id = kb.url().split('/').pop()!;
    const saved = (await api(kernel.apiUrl, `/api/v1/workflows/${id}`, { token })).body as { steps: { id: string; next: string[]; config: Record<string, unknown> }[] };
    t.deepEqual(saved.steps.map((s) => [s.id, s.next]), [['start', ['condition']], ['end', []], ['end_2', []], ['condition', ['end', 'end_2']]]);
    t.like(saved.steps.find((s) => s.id === 'condition')!.config, { expression: '{{trigger.ok}}', branches: { true: 'end', false: 'end_2' } });
  } catch (err) {
    await kb.screenshot({ path: join(ARTIFACTS, 'failed-editor-keyboard.png'), fullPage: true }).catch(() => undefined);
    throw err;
  } finally {
    await own.close();
  }
});

test.serial("the editor's component-test fixtures are what the server says now (node types, config verdicts, the 422)", async (t) => {
  t.timeout(300_000);
  const now = JSON.parse(JSON.stringify(await captureEditorFixtures(kernel.apiUrl, token)));
  for (const key of ['types', 'verdicts', 'unforeseen'] as const) {
    t.deepEqual(now[key], JSON.parse(readFileSync(FIXTURE_FILES[key], 'utf8')), `${FIXTURE_FILES[key]} is stale: run node --import tsx web/scripts/editor-fixtures.ts`);
  }
});

test.serial('every /api request the editor made is a path of /api/openapi.json', async (t) => {
  t.true(web.apiRequests.some((r) => r.startsWith('PUT /api/v1/workflows/')));
  t.deepEqual(await requestsOutsideOpenApi(web), []);
});

