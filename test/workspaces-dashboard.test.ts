import test from 'ava';
import { join } from 'node:path';
import { startWorkspacesKernel, type WorkspacesKernel } from './helpers/workspaces-kernel.ts';
import { writePackage } from './helpers/packages.ts';
import { WORKSPACE_DASHBOARD_TIMEOUT_MS } from '../kernel/workspace-contracts.ts';

let ws: WorkspacesKernel;
test.before(async () => {
  ws = await startWorkspacesKernel('workspaces_dashboard', ['dashboard-contributors']);
});
test.after.always(async () => {
  await ws?.close();
});

const OWNER = 'owner-token';
const dashboardOf = async (id: string, token = OWNER) => {
  const res = await ws.call(`/api/v1/workspaces/${id}`, { token });
  if (res.status !== 200) throw new Error(`GET answered ${res.status}: ${res.text}`);
  return res.body.dashboard;
};

test('every contributor is merged under its service name; failures are reported, not fatal', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const dashboard = await dashboardOf(w.id, 'member-token');
  t.deepEqual(Object.keys(dashboard).sort(), ['board', 'crashing', 'unconfigured', 'workspaces']);
  t.deepEqual(dashboard.board, {
    columns: { 'To Do': 2, Scheduled: 0, 'In Progress': 1, 'Needs Attention': 0, Done: 5 },
    seen: { entity_id: 'e-1', workspace_id: w.id },
  });
  t.deepEqual(dashboard.unconfigured, { error: 'This workspace has no board yet.' });
  t.deepEqual(Object.keys(dashboard.crashing), ['error']);
  t.false(JSON.stringify(dashboard.crashing).includes('hunter2'), 'a server error stays in the log');
  t.is(dashboard.workspaces.activity_total, 1);
});

test('the entity given to contributors is the caller’s', async (t) => {
  const w = await ws.createWorkspace('other-token');
  t.deepEqual((await dashboardOf(w.id, 'other-token')).board.seen, { entity_id: 'e-2', workspace_id: w.id });
});

test('a hot-loaded contributor counts at once, a slow one is cut off, an unloaded one is gone', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const fresh = writePackage(ws.scratch, 'fresh-contributor', {
    body: `export default [
  { name: 'jobs', actions: { workspaceDashboard: { visibility: 'public', handler: (ctx) => ({ enabled_jobs: 3, for: ctx.params.workspace_id }) } } },
  { name: 'sluggish', actions: { workspaceDashboard: { visibility: 'public', handler: () => new Promise((r) => setTimeout(() => r({ late: true }), ${WORKSPACE_DASHBOARD_TIMEOUT_MS * 2})) } } },
];
`,
  });
  t.false('jobs' in (await dashboardOf(w.id)));
  const rec = await ws.kernel.loader.load(fresh);
  t.is(rec.state, 'loaded', JSON.stringify(rec.error));
  const dashboard = await dashboardOf(w.id);
  t.deepEqual(dashboard.jobs, { enabled_jobs: 3, for: w.id });
  t.deepEqual(dashboard.sluggish, { error: `no answer within ${WORKSPACE_DASHBOARD_TIMEOUT_MS} ms` });
  t.deepEqual(dashboard.board.seen.workspace_id, w.id, 'the others still answer');
  await ws.kernel.loader.unload(join(ws.scratch, 'fresh-contributor'));
  const after = await dashboardOf(w.id);
  t.false('jobs' in after);
  t.false('sluggish' in after);
});
