import test from 'ava';
import { Sequelize } from 'sequelize';
import { useTasksKernel } from './helpers/tasks-kernel.ts';

const fixture = useTasksKernel(test, 'tasks_collections');
const owner = 'owner-token';
const call = (path: string, method = 'GET', json?: unknown, token = owner) => fixture.tk.call(`/api/v1/tasks${path}`, { method, token, json });

async function withDb<T>(work: (sql: Sequelize) => Promise<T>): Promise<T> {
  const sql = new Sequelize(fixture.tk.db.url, { logging: false });
  try {
    return await work(sql);
  } finally {
    await sql.close();
  }
}

test('categories: icon and color, unique names, validated, refused while in use', async (t) => {
  const made = await call('/categories', 'POST', { name: 'Billing', icon: '💳', color: '#AABBCC' });
  t.is(made.status, 201, made.text);
  t.like(made.body, { name: 'Billing', icon: '💳', color: '#aabbcc' });
  t.is((await call('/categories', 'POST', { name: 'billing' })).status, 409, 'names are unique regardless of case');
  const badColor = await call('/categories', 'POST', { name: 'X', color: 'red' });
  t.is(badColor.status, 422);
  t.is(badColor.body.errors[0].field, 'color');
  const renamed = await call(`/categories/${made.body.id}`, 'PUT', { name: 'Invoices' });
  t.like(renamed.body, { name: 'Invoices', icon: '💳' });
  const list = await call('/categories');
  t.true(list.body.items.some((c: any) => c.id === made.body.id));
  t.is((await call(`/categories/${made.body.id}`, 'GET', undefined, 'other-token')).status, 404);

  const task = await fixture.tk.createTask(owner, { category_id: made.body.id });
  t.is(task.category_id, made.body.id);
  const filtered = await call(`?category=${made.body.id}`);
  t.deepEqual(filtered.body.items.map((x: any) => x.id), [task.id]);
  const inUse = await call(`/categories/${made.body.id}`, 'DELETE');
  t.is(inUse.status, 409);
  t.is(inUse.body.code, 'TASKS_ERR_IN_USE');
  await call(`/${task.id}`, 'PUT', { category_id: null });
  t.is((await call(`/categories/${made.body.id}`, 'DELETE')).status, 204);
  const unknown = await call('', 'POST', { title: 'x', category_id: made.body.id });
  t.is(unknown.status, 422);
  t.is(unknown.body.errors[0].field, 'category_id');
});

test('an SLA policy sets due dates per priority; breaches are computed against real time and queryable', async (t) => {
  const policy = await call('/sla-policies', 'POST', { name: 'Standard', targets: { '1': { response_minutes: 5, resolution_minutes: 60 }, '3': { response_minutes: 60, resolution_minutes: 480 } } });
  t.is(policy.status, 201, policy.text);
  const urgent = await fixture.tk.createTask(owner, { title: 'urgent', priority: 1, sla_policy_id: policy.body.id });
  const created = Date.parse(urgent.created_at);
  t.is(Date.parse(urgent.sla.response_due_at), created + 5 * 60_000);
  t.is(Date.parse(urgent.sla.resolution_due_at), created + 60 * 60_000);
  t.like(urgent.sla, { breached: false, breached_at: null, due_at: urgent.sla.response_due_at });
  const calm = await fixture.tk.createTask(owner, { title: 'calm', priority: 3, sla_policy_id: policy.body.id });
  const none = await fixture.tk.createTask(owner, { title: 'no target', priority: 5, sla_policy_id: policy.body.id });
  t.like(none.sla, { due_at: null, breached: false });

  // the urgent task is two hours old: both its clocks ran out
  await withDb((sql) =>
    sql.query(
      `UPDATE tasks SET created_at = created_at - interval '2 hours', sla_response_due_at = sla_response_due_at - interval '2 hours', sla_resolution_due_at = sla_resolution_due_at - interval '2 hours' WHERE id = $1`,
      { bind: [urgent.id] },
    ),
  );
  const late = (await call(`/${urgent.id}`)).body;
  t.like(late.sla, { breached: true, breached_at: new Date(Date.parse(urgent.sla.response_due_at) - 2 * 3600_000).toISOString() });
  const breached = await call(`?sla_breached=true`);
  t.deepEqual(breached.body.items.map((x: any) => x.title), ['urgent']);
  const notBreached = await call(`?sla_breached=false`);
  t.true(notBreached.body.items.some((x: any) => x.id === calm.id));
  t.false(notBreached.body.items.some((x: any) => x.id === urgent.id));

  // responding stops the response clock (late), resolving stops the other (late too)
  await call(`/${urgent.id}/move`, 'POST', { status: 'in_progress' });
  const done = (await call(`/${urgent.id}/move`, 'POST', { status: 'completed' })).body;
  t.like(done.sla, { breached: true, due_at: null });

  // a new priority moves the due dates; so do new targets
  const raised = (await call(`/${calm.id}`, 'PUT', { priority: 1 })).body;
  t.is(Date.parse(raised.sla.response_due_at), Date.parse(calm.created_at) + 5 * 60_000);
  const changed = await call(`/sla-policies/${policy.body.id}`, 'PUT', { targets: { '1': { response_minutes: 10, resolution_minutes: 120 } } });
  t.is(changed.status, 200, changed.text);
  const after = (await call(`/${calm.id}`)).body;
  t.is(Date.parse(after.sla.response_due_at), Date.parse(calm.created_at) + 10 * 60_000);
  t.is(after.version, raised.version + 1);
  const history = (await call(`/${calm.id}/history`)).body.items;
  t.is(history.at(-1).action, 'sla_policy_changed');

  const inUse = await call(`/sla-policies/${policy.body.id}`, 'DELETE');
  t.is(inUse.status, 409);
  const badTargets = await call('/sla-policies', 'POST', { name: 'Bad', targets: { '6': { response_minutes: 5 } } });
  t.is(badTargets.status, 422);
  const backwards = await call('/sla-policies', 'POST', { name: 'Backwards', targets: { '2': { response_minutes: 50, resolution_minutes: 5 } } });
  t.is(backwards.status, 422);
  t.is(backwards.body.errors[0].field, 'targets.2.response_minutes');
});

test('templates render {{variables}} into a task; a missing variable is a 422 naming it and creates nothing', async (t) => {
  const category = (await call('/categories', 'POST', { name: 'Onboarding' })).body;
  const template = await call('/templates', 'POST', {
    name: 'Welcome',
    title: 'Welcome {{ customer }}',
    description: 'Call {{customer}} on {{day}}. Keep \\{{literal}}.',
    defaults: { priority: 2, category_id: category.id, requester: '{{email}}' },
  });
  t.is(template.status, 201, template.text);
  t.deepEqual(template.body.variables, ['customer', 'day', 'email']);

  const inCategory = async () => (await call(`?category=${category.id}`)).body.total;
  const before = await inCategory();
  const missing = await call(`/templates/${template.body.id}/instantiate`, 'POST', { variables: { customer: 'ACME' } });
  t.is(missing.status, 422);
  t.deepEqual(missing.body.errors.map((e: any) => e.field), ['variables.day', 'variables.email']);
  t.is(await inCategory(), before, 'nothing was created');

  const made = await call(`/templates/${template.body.id}/instantiate`, 'POST', { variables: { customer: 'ACME', day: 'Monday', email: 'a@acme.test' }, overrides: { priority: 4 } });
  t.is(made.status, 201, made.text);
  t.like(made.body, { title: 'Welcome ACME', description: 'Call ACME on Monday. Keep {{literal}}.', priority: 4, category_id: category.id, requester: 'a@acme.test', template_id: template.body.id });

  const badRef = await call('/templates', 'POST', { name: 'Broken', title: 'x', defaults: { category_id: '01900000-0000-7000-8000-000000000000' } });
  t.is(badRef.status, 422);
  t.is(badRef.body.errors[0].field, 'defaults.category_id');
  const badValue = await call(`/templates/${template.body.id}/instantiate`, 'POST', { variables: { customer: { nested: true }, day: 'x', email: 'y' } });
  t.is(badValue.status, 422);
  t.is(badValue.body.errors[0].field, 'variables.customer');
  const tooMany = await call(`/templates/${template.body.id}/instantiate`, 'POST', { variables: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, 'x'])) });
  t.is(tooMany.status, 422);
  t.is(tooMany.body.errors[0].field, 'variables');
  t.is((await call(`/templates/${template.body.id}/instantiate`, 'POST', { variables: {} }, 'other-token')).status, 404);
  t.is((await call(`/templates/${template.body.id}`, 'DELETE')).status, 204);
});
