import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveTemplates } from '../plugins/workflows/engine/templates.ts';
import { runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';
import { startLocalServer, type LocalServer } from './workflows-local-server.ts';

/**
 * n8n workflows that run unchanged: each fixture in test/fixtures/n8n is an n8n export (its
 * real shape) whose `pinData` holds every node's expected items. Each imports with nothing
 * unmapped, runs through the engine from its entry node's pinned item, and every node's items
 * (where the import report says they are) equal the pinned ones. A fixture whose
 * `meta.about.expect_response` is set is also called through a webhook binding (its answer's
 * JSON `body`, or its `text` and `content_type`); one with `meta.about.resume_inputs` is resumed
 * with each in turn (POST /runs/{id}/resume) where it pauses, as n8n's Wait is by its resume call.
 */
const TOKEN = 'owner-token';
const DIR = join(import.meta.dirname, 'fixtures', 'n8n');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const ENTRY = /\.(webhook|manualTrigger|scheduleTrigger)$/;
const LISTED = [
  'webhook', 'scheduleTrigger', 'manualTrigger', 'httpRequest', 'set', 'if', 'switch', 'merge', 'code', 'splitInBatches', 'wait', 'respondToWebhook', 'noOp',
  'stickyNote', 'filter', 'sort', 'limit', 'removeDuplicates', 'aggregate', 'dateTime',
].map((t) => `n8n-nodes-base.${t}`);

type Report = { source: string; source_type: string; step_id: string; status: string; notes: string[]; items?: unknown };

let k: WorkflowsKernel;
let server: LocalServer;
let workspaceId: string;
test.before(async () => {
  server = await startLocalServer();
  k = await startWorkflowsKernel('wf_n8n_fixtures', { links: ['sandbox/runner'], env: { WORKFLOW_HTTP_ALLOW: '127.0.0.1/32' } });
  workspaceId = await k.createWorkspace(TOKEN);
});
test.after.always(async () => {
  await k?.close();
  await server?.close();
});

const read = (file: string) => JSON.parse(readFileSync(join(DIR, file), 'utf8').replaceAll('http://127.0.0.1:0', server.url));
const seenTypes = new Set<string>();

/** Every step's output by its step id (a loop body step's: its last iteration's). */
function outputsOf(run: { steps: { step_id: string; output: unknown }[] }): Map<string, unknown> {
  const outputs = new Map<string, unknown>();
  for (const s of run.steps) if (!/[:@]/.test(s.step_id)) outputs.set(s.step_id, s.output);
  const iterations = run.steps.filter((s) => /^[^:]+@\d+$/.test(s.step_id) && !outputs.has(s.step_id.split('@')[0]));
  for (const s of iterations) outputs.set(s.step_id.split('@')[0], s.output);
  return outputs;
}

for (const file of FILES) {
  test.serial(`n8n fixture ${file}: imports with nothing unmapped and every node's items equal its pinned data`, async (t) => {
    const doc = read(file);
    const imported = await k.call('/api/v1/workflows/import', { method: 'POST', token: TOKEN, json: { format: 'n8n', data: doc } });
    t.is(imported.status, 201, imported.text);
    const report = imported.body.report as Report[];
    t.deepEqual(report.filter((r) => r.status === 'unmapped').map((r) => `${r.source}: ${r.notes.join('; ')}`), []);
    t.is(report.length, doc.nodes.length, 'every source node is in the report');
    for (const r of report) seenTypes.add(r.source_type);
    const entry = report.find((r) => ENTRY.test(r.source_type))!;
    const input = doc.pinData[entry.source][0].json;
    const wf = imported.body.workflow;
    const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: TOKEN, json: { input, wait: true } });
    const runId = started.body.run_id ?? started.body.id;
    let done = await runUntil(k, TOKEN, runId, ['completed', 'failed', 'paused'], 60_000);
    for (const resumeInput of (doc.meta?.about?.resume_inputs ?? []) as unknown[]) {
      t.is(done.status, 'paused', 'the run waits to be resumed');
      const resumed = await k.call(`/api/v1/workflows/runs/${runId}/resume`, { method: 'POST', token: TOKEN, json: { input: resumeInput } });
      t.true(resumed.status < 300, resumed.text);
      done = await runUntil(k, TOKEN, runId, ['completed', 'failed', 'paused'], 60_000);
    }
    t.is(done.status, 'completed', JSON.stringify(done.error));
    const scope = { outputs: outputsOf(done), stepIds: new Set<string>(wf.steps.map((s: { id: string }) => s.id)), variables: {}, trigger: input };
    for (const [name, pinned] of Object.entries(doc.pinData as Record<string, { json: unknown }[]>)) {
      const r = report.find((x) => x.source === name);
      t.truthy(r?.items, `${name}: the report says where its items are`);
      t.deepEqual(resolveTemplates(r!.items, scope), pinned.map((i) => i.json), `${name} (${r?.step_id})`);
    }
    const pinnedNodes = new Set(Object.keys(doc.pinData));
    t.deepEqual(doc.nodes.filter((n: { type: string; name: string }) => !pinnedNodes.has(n.name) && !/stickyNote$/.test(n.type)).map((n: { name: string }) => n.name), [], 'every node is pinned');

    const expected = doc.meta?.about?.expect_response;
    if (expected) {
      const binding = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: TOKEN, json: { workflow_id: wf.id, workspace_id: workspaceId, trigger: 'webhook' } });
      t.is(binding.status, 201, binding.text);
      const answer = await k.call(`/api/v1/workflows/webhook/${binding.body.webhook_token}`, { method: 'POST', json: input.body });
      t.is(answer.status, expected.status, answer.text);
      if ('text' in expected) {
        t.is(answer.text, expected.text);
        t.is(answer.headers.get('content-type'), expected.content_type);
      } else t.deepEqual(answer.body, expected.body);
    }
  });
}

test.serial('the fixtures cover every listed n8n node type', (t) => {
  t.deepEqual(LISTED.filter((type) => !seenTypes.has(type)), []);
});
