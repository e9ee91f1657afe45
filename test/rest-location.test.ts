import { existsSync } from 'node:fs';
import { BUILTIN_ROOTS } from '../kernel/capabilities/discover.ts';
import test from 'ava';
import { join } from 'node:path';
import { startTestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { useTasksKernel } from './helpers/tasks-kernel.ts';
import { locationOf } from '../kernel/gateway/location.ts';

const ROOT = join(import.meta.dirname, '..');
const fixture = useTasksKernel(test, 'rest_location');
const owner = 'owner-token';

type Gateway = { resolveAlias(url: string, method: string): unknown };
type ActionInfo = { name: string; rest?: unknown; response?: Record<string, unknown>; location?: string };

test('every create of the built-in packages answers a Location that a route serves', async (t) => {
  const db = await createTestDatabase('rest_location_all');
  const kernel = await startTestKernel({ roots: BUILTIN_ROOTS.map((r) => join(ROOT, r)).filter((r) => existsSync(r)), env: { DATABASE_URL: db.url } });
  try {
    const gateway = kernel.broker.getLocalService('api') as unknown as Gateway;
    const doc = (await (await fetch(`${kernel.apiUrl}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown>; 'x-moleculer-action': string }>> };
    const actions = new Map<string, ActionInfo>();
    for (const service of kernel.broker.registry.getServiceList({ withActions: true }) as { actions?: Record<string, ActionInfo> }[]) {
      for (const action of Object.values(service.actions ?? {})) actions.set(action.name, action);
    }
    let creates = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      const op = item.post;
      if (!op?.responses['201']) continue;
      creates++;
      const action = actions.get(op['x-moleculer-action'])!;
      const requestPath = path.replace(/\{[^}]+\}/g, 'p1');
      // the answer a create gives, as far as the Location needs it: an id, also under the object it nests it in
      const answer = { id: 'new-1', workflow: { id: 'new-1' }, agent: { id: 'new-1' }, user: { id: 'new-1' } };
      const location = locationOf(gateway, requestPath, answer, action.location);
      t.truthy(gateway.resolveAlias(location, 'GET') || gateway.resolveAlias(location, 'PUT') || gateway.resolveAlias(location, 'DELETE'), `${path}: its Location ${location} is no route`);
    }
    t.true(creates >= 15, `found ${creates} creates`);
  } finally {
    await kernel.close();
    await db.drop();
  }
});

async function created(path: string, json: unknown): Promise<{ location: string; body: any }> {
  const res = await fixture.tk.call(path, { method: 'POST', token: owner, json });
  if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${res.text}`);
  return { location: res.headers.get('Location') ?? '', body: res.body };
}

test('a create points at what it made: GET of its Location answers it', async (t) => {
  const task = await created('/api/v1/tasks', { title: 'located' });
  t.is(task.location, `/api/v1/tasks/${task.body.id}`);
  const category = await created('/api/v1/tasks/categories', { name: 'Located' });
  t.is(category.location, `/api/v1/tasks/categories/${category.body.id}`);
  const template = await created('/api/v1/tasks/templates', { name: 'Located template', title: 'From a template' });
  t.is(template.location, `/api/v1/tasks/templates/${template.body.id}`);
  const instance = await created(`/api/v1/tasks/templates/${template.body.id}/instantiate`, {});
  t.is(instance.location, `/api/v1/tasks/${instance.body.id}`, 'an instance lives under /tasks, as its template declares');
  const comment = await created(`/api/v1/tasks/${task.body.id}/logs`, { body: 'noted' });
  t.is(comment.location, `/api/v1/tasks/${task.body.id}/logs`, 'no route of its own: the collection listing it');
  for (const made of [task, category, template, instance]) {
    const read = await fixture.tk.call(made.location, { token: owner });
    t.is(read.status, 200, `${made.location}: ${read.text}`);
    t.is(read.body.id, made.body.id);
  }
  const listed = await fixture.tk.call(comment.location, { token: owner });
  t.true(listed.body.items.some((item: { id: string }) => item.id === comment.body.id));
});
