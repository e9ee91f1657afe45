import test from 'ava';
import { join } from 'node:path';
import { nodeFixtures, withChildIds } from './helpers/node-fixtures.ts';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

const TOKEN = 'owner-token';
let k: WorkflowsKernel;
let workspaceId: string;
test.before(async () => {
  k = await startWorkflowsKernel('node_fixtures');
  workspaceId = await k.createWorkspace(TOKEN);
});
test.after.always(async () => {
  await k?.close();
});

for (const { node, file, fixture } of nodeFixtures(join(import.meta.dirname, '..'))) {
  test(`${node}/${file}: ${fixture.title}`, async (t) => {
    const ids: Record<string, string> = {};
    for (const [name, child] of Object.entries(fixture.children ?? {})) {
      const res = await k.call('/api/v1/workflows', { method: 'POST', token: TOKEN, json: { name: `${node} ${file} child ${name}`, ...child } });
      t.is(res.status, 201, `child ${name}: ${res.text}`);
      ids[name] = res.body.id;
    }
    const definition = withChildIds(fixture.definition, ids);
    const saved = await k.call('/api/v1/workflows', { method: 'POST', token: TOKEN, json: { name: definition.name ?? `${node} ${file}`, ...definition } });
    if (fixture.expect_save) {
      t.is(saved.status, fixture.expect_save.status, saved.text);
      for (const e of fixture.expect_save.errors) {
        t.true(saved.body.errors?.some((p: { field: string; type: string }) => p.field === e.field && p.type === e.type), `expected ${JSON.stringify(e)} in ${JSON.stringify(saved.body.errors)}`);
      }
      return;
    }
    t.is(saved.status, 201, saved.text);
    let path = `/api/v1/workflows/${saved.body.id}/run`;
    if (fixture.binding) {
      const binding = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: TOKEN, json: { workflow_id: saved.body.id, workspace_id: workspaceId, trigger: 'manual' } });
      t.is(binding.status, 201, binding.text);
      path = `/api/v1/workflows/bindings/${binding.body.id}/run`;
    }
    for (const [i, run] of (fixture.runs ?? []).entries()) {
      const started = await k.call(path, { method: 'POST', token: TOKEN, json: { input: run.input ?? {}, variables: run.variables ?? {}, wait: true } });
      t.true(started.status === 200 || started.status === 202, started.text);
      const done = await runUntil(k, TOKEN, started.body.run_id ?? started.body.id, ['completed', 'failed', 'paused']);
      const label = `run ${i + 1}`;
      t.log(label, done.steps.map((s: { step_id: string; status: string }) => `${s.step_id}:${s.status}`).join(' '));
      t.is(done.status, run.expect.status, `${label}: ${JSON.stringify(done.error)}`);
      if ('output' in run.expect) t.deepEqual(done.output, run.expect.output, `${label} output`);
      for (const [stepId, want] of Object.entries(run.expect.steps ?? {})) {
        const r = receipt(done, stepId);
        t.truthy(r, `${label}: no receipt for ${stepId}`);
        if (want.status) t.is(r?.status, want.status, `${label}: ${stepId} status (${JSON.stringify(r?.error)})`);
        if ('output' in want) t.deepEqual(r?.output, want.output, `${label}: ${stepId} output`);
        if (want.error_code) t.is(r?.error?.code, want.error_code, `${label}: ${stepId} error code`);
        if (want.error_match) t.regex(String(r?.error?.message), new RegExp(want.error_match), `${label}: ${stepId} error message`);
      }
    }
  });
}
