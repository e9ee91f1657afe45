import test from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorkflowsKernel, linearWorkflow, SLEEP_NODE, type WorkflowsKernel } from './workflows-helpers.ts';

let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_definitions');
});
test.after.always(async () => {
  await k?.close();
});

test('node types are read from the registry with their schemas', async (t) => {
  const res = await k.call('/api/v1/workflows/node-types', { token: 'member-token' });
  t.is(res.status, 200, res.text);
  const types = res.body.items.map((i: { type: string }) => i.type);
  for (const type of ['trigger', 'webhook', 'respond', 'condition', 'switch', 'parallel', 'merge', 'wait', 'stop', 'end', 'transform', 'note', 'http']) t.true(types.includes(type), type);
  const http = res.body.items.find((i: { type: string }) => i.type === 'http');
  t.is(http.category, 'action');
  t.is(http.config_schema.type, 'object');
  t.deepEqual(http.uncertain_effect, { config_key: 'method', values: ['POST', 'PATCH'] });
  t.is(http.service, 'node.http');
  const condition = res.body.items.find((i: { type: string }) => i.type === 'condition');
  t.deepEqual(condition.outputs, ['true', 'false']);
});

test('create, read, update (new version), list and delete a definition', async (t) => {
  const created = await k.createWorkflow('member-token', linearWorkflow('crud'));
  t.is(created.version, 1);
  t.is(created.trigger_type, 'manual');
  const updated = await k.call(`/api/v1/workflows/${created.id}`, { method: 'PUT', token: 'member-token', json: { ...linearWorkflow('crud v2'), description: 'second' } });
  t.is(updated.status, 200, updated.text);
  t.is(updated.body.version, 2);
  t.is(updated.body.name, 'crud v2');
  const got = await k.call(`/api/v1/workflows/${created.id}`, { token: 'owner-token' });
  t.is(got.status, 200);
  t.deepEqual(got.body.versions.map((v: { version: number }) => v.version), [2, 1]);
  const list = await k.call('/api/v1/workflows?limit=200', { token: 'admin-token' });
  t.true(list.body.items.some((w: { id: string }) => w.id === created.id));
  const del = await k.call(`/api/v1/workflows/${created.id}`, { method: 'DELETE', token: 'member-token' });
  t.is(del.status, 204);
  t.is((await k.call(`/api/v1/workflows/${created.id}`, { token: 'member-token' })).status, 404);
});

async function rejected(t: import('ava').ExecutionContext, body: Record<string, unknown>): Promise<{ field: string; type: string; message: string }[]> {
  const res = await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: body });
  t.is(res.status, 422, res.text);
  t.is(res.body.code, 'WORKFLOWS_ERR_INVALID_DEFINITION');
  const after = await k.call('/api/v1/workflows?limit=200', { token: 'owner-token' });
  t.false(after.body.items.some((w: { name: string }) => w.name === body.name), 'a rejected save stores nothing');
  return res.body.errors;
}

test('two entry nodes are rejected, naming both', async (t) => {
  const errors = await rejected(t, { name: 'two', steps: [{ id: 'a', type: 'trigger', next: ['c'] }, { id: 'b', type: 'webhook', next: ['c'] }, { id: 'c', type: 'end' }] });
  t.deepEqual(errors.filter((e) => e.type === 'multiple_entries').map((e) => e.field).sort(), ['steps.a.type', 'steps.b.type']);
});

test('no entry node is rejected', async (t) => {
  const errors = await rejected(t, { name: 'none', steps: [{ id: 'a', type: 'transform', config: { set: {} }, next: ['b'] }, { id: 'b', type: 'end' }] });
  t.true(errors.some((e) => e.type === 'no_entry'));
});

test('a dangling next is rejected by step id', async (t) => {
  const errors = await rejected(t, { name: 'dangling', steps: [{ id: 'a', type: 'trigger', next: ['ghost'] }] });
  t.deepEqual(errors.map((e) => [e.field, e.type]), [['steps.a.next', 'dangling_next']]);
});

test('an unknown type is rejected by step id', async (t) => {
  const errors = await rejected(t, { name: 'unknown', steps: [{ id: 'a', type: 'trigger', next: ['b'] }, { id: 'b', type: 'teleport', next: [] }] });
  t.deepEqual(errors.map((e) => [e.field, e.type]), [['steps.b.type', 'unknown_type']]);
});

test('a bad config is rejected against the type schema, every problem listed', async (t) => {
  const errors = await rejected(t, {
    name: 'bad config',
    steps: [
      { id: 'a', type: 'trigger', next: ['h'] },
      { id: 'h', type: 'http', config: { method: 'FETCH', timeout: -1 }, next: ['w'] },
      { id: 'w', type: 'wait', config: { wait_type: 'timer' }, next: [] },
    ],
  });
  const fields = errors.map((e) => e.field).sort();
  t.deepEqual(fields, ['steps.h.config.method', 'steps.h.config.timeout', 'steps.h.config.url', 'steps.w.config.seconds']);
});

test('every problem carries its step id and a JSON pointer into the body, also for a config key holding a dot', async (t) => {
  const errors = (await rejected(t, {
    name: 'pointers',
    steps: [
      { id: 'a', type: 'trigger', next: ['h', 'ghost'] },
      { id: 'h', type: 'http', config: { url: 'https://example.test/', headers: { 'x.y/z': 5 }, timeout: -1 }, next: [] },
      { id: 'b', type: 'webhook', next: [] },
    ],
  })) as { field: string; type: string; step_id?: string; pointer?: string }[];
  const by = (type: string) => errors.filter((e) => e.type === type).map((e) => [e.step_id, e.pointer]);
  t.deepEqual(by('dangling_next'), [['a', '/steps/0/next']]);
  t.deepEqual(by('multiple_entries').sort(), [['a', '/steps/0/type'], ['b', '/steps/2/type']]);
  t.deepEqual(by('bad_config').sort(), [['h', '/steps/1/config/headers/x.y~1z'], ['h', '/steps/1/config/timeout']]);
});

test('a step position is stored with the definition and refused when it is not a finite point', async (t) => {
  const body = { name: 'drawn', steps: [{ id: 'a', type: 'trigger', next: ['b'], position: { x: 10, y: -20.5 } }, { id: 'b', type: 'end' }] };
  const created = await k.createWorkflow('owner-token', body);
  t.deepEqual(created.steps[0].position, { x: 10, y: -20.5 });
  t.is(created.steps[1].position, undefined);
  const run = await k.call(`/api/v1/workflows/${created.id}/run`, { method: 'POST', token: 'owner-token', json: { input: {}, wait: true } });
  t.is(run.body.status, 'completed', run.text);
  for (const position of [{ x: 1 }, { x: 'a', y: 1 }, { x: 1, y: 2, z: 3 }, { x: 1e7, y: 0 }]) {
    const res = await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { ...body, steps: [{ ...body.steps[0], position }, body.steps[1]] } });
    t.is(res.status, 422, JSON.stringify(position));
    t.true(res.body.errors.some((e: { field: string }) => e.field.startsWith('steps[0].position')), res.text);
  }
});

test('a cycle is rejected, naming the steps on it', async (t) => {
  const errors = await rejected(t, {
    name: 'cycle',
    steps: [
      { id: 'a', type: 'trigger', next: ['b'] },
      { id: 'b', type: 'transform', config: { set: {} }, next: ['c'] },
      { id: 'c', type: 'transform', config: { set: {} }, next: ['b'] },
    ],
  });
  t.deepEqual(errors.filter((e) => e.type === 'cycle').map((e) => e.field).sort(), ['steps.b.next', 'steps.c.next']);
});

test('a branch target must also be in next', async (t) => {
  const errors = await rejected(t, {
    name: 'branch',
    steps: [
      { id: 'a', type: 'trigger', next: ['c'] },
      { id: 'c', type: 'condition', config: { expression: '{{trigger.ok}}', branches: { true: 'd', false: 'e' } }, next: ['d'] },
      { id: 'd', type: 'end' },
      { id: 'e', type: 'end' },
    ],
  });
  t.deepEqual(errors.map((e) => [e.field, e.type]), [['steps.c.config', 'branch_not_in_next']]);
});

test('a template is accepted where the schema expects another type', async (t) => {
  const created = await k.createWorkflow('owner-token', {
    name: 'templated',
    steps: [
      { id: 'a', type: 'webhook', next: ['r'] },
      { id: 'r', type: 'respond', config: { status: '{{trigger.body.code}}', body: { ok: true } }, next: [] },
    ],
  });
  t.is(created.trigger_type, 'webhook');
});

test("another entity's workflow is 404 on read, update and delete, and stays unchanged", async (t) => {
  const created = await k.createWorkflow('owner-token', linearWorkflow('mine'));
  t.is((await k.call(`/api/v1/workflows/${created.id}`, { token: 'other-token' })).status, 404);
  t.is((await k.call(`/api/v1/workflows/${created.id}`, { method: 'PUT', token: 'other-token', json: linearWorkflow('theirs') })).status, 404);
  t.is((await k.call(`/api/v1/workflows/${created.id}`, { method: 'DELETE', token: 'other-token' })).status, 404);
  const mine = await k.call(`/api/v1/workflows/${created.id}`, { token: 'owner-token' });
  t.is(mine.body.name, 'mine');
  t.is(mine.body.version, 1);
  t.false((await k.call('/api/v1/workflows', { token: 'other-token' })).body.items.some((w: { id: string }) => w.id === created.id));
});

test('an undeclared field in the body is refused', async (t) => {
  const res = await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { ...linearWorkflow(), colour: 'red' } });
  t.is(res.status, 422);
});

test('every workflow route is in the OpenAPI document, which stays valid', async (t) => {
  const { validateOpenApi } = await import('../kernel/openapi/validate.ts');
  const res = await k.call('/api/openapi.json');
  t.is(res.status, 200);
  await t.notThrowsAsync(() => validateOpenApi(res.body));
  const paths = Object.keys(res.body.paths).filter((p) => p.startsWith('/api/v1/workflows'));
  for (const p of ['/api/v1/workflows', '/api/v1/workflows/{id}', '/api/v1/workflows/node-types', '/api/v1/workflows/bindings', '/api/v1/workflows/bindings/{id}', '/api/v1/workflows/bindings/{id}/run', '/api/v1/workflows/{id}/run', '/api/v1/workflows/{id}/run-stream', '/api/v1/workflows/trigger', '/api/v1/workflows/webhook/{token}', '/api/v1/workflows/runs', '/api/v1/workflows/runs/{run_id}', '/api/v1/workflows/runs/{run_id}/events', '/api/v1/workflows/runs/{run_id}/family', '/api/v1/workflows/runs/{run_id}/cancel', '/api/v1/workflows/runs/{run_id}/resume', '/api/v1/workflows/runs/{run_id}/retry', '/api/v1/workflows/runs/{run_id}/step', '/api/v1/workflows/run-node']) {
    t.true(paths.includes(p), p);
  }
  t.deepEqual(res.body.paths['/api/v1/workflows/webhook/{token}'].post.security, []);
});

test('a node type package loaded while the service runs is listed and usable in the next saved definition', async (t) => {
  const body = { name: 'hot', steps: [{ id: 's', type: 'trigger', next: ['z'] }, { id: 'z', type: 'sleep', config: { ms: 1 }, next: [] }] };
  t.is((await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: body })).status, 422);
  const dir = join(k.root, 'test-node-sleep');
  mkdirSync(dir);
  for (const [file, text] of Object.entries(SLEEP_NODE)) writeFileSync(join(dir, file), text);
  const rec = await k.kernel.loader.load(dir);
  t.is(rec.state, 'loaded');
  const types = await k.call('/api/v1/workflows/node-types', { token: 'owner-token' });
  t.true(types.body.items.some((i: { type: string }) => i.type === 'sleep'));
  const saved = await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: body });
  t.is(saved.status, 201, saved.text);
  const run = await k.call(`/api/v1/workflows/${saved.body.id}/run`, { method: 'POST', token: 'owner-token', json: { wait: true } });
  t.deepEqual(run.body.output, { slept: 1 });
});
