import test from 'ava';
import { startWorkspacesKernel, type WorkspacesKernel } from './helpers/workspaces-kernel.ts';

let ws: WorkspacesKernel;
test.before(async () => {
  ws = await startWorkspacesKernel('workspaces_settings');
});
test.after.always(async () => {
  await ws?.close();
});

const OWNER = 'owner-token';
const fieldsOf = (body: any): string[] => (body?.errors ?? []).map((e: { field: string }) => e.field).sort();

test('the operating model starts with the documented defaults', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const res = await ws.call(`/api/v1/workspaces/${w.id}/operating-model`, { token: 'member-token' });
  t.is(res.status, 200);
  t.deepEqual(res.body, { default_agent_id: null, default_model: null, timezone: 'UTC', working_hours: null, autonomy_level: 'supervised' });
});

test('PUT operating-model replaces the keys given, keeps the others, and bumps the version', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const path = `/api/v1/workspaces/${w.id}/operating-model`;
  const hours = { days: ['mon', 'tue', 'wed'], start: '08:30', end: '17:00' };
  const res = await ws.call(path, { method: 'PUT', token: 'member-token', json: { timezone: 'Europe/Paris', working_hours: hours, default_model: 'small-1' } });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { default_agent_id: null, default_model: 'small-1', timezone: 'Europe/Paris', working_hours: hours, autonomy_level: 'supervised' });
  const second = await ws.call(path, { method: 'PUT', token: OWNER, json: { autonomy_level: 'autonomous', default_model: null, working_hours: { days: ['sat'], start: '22:00', end: '06:00' } } });
  t.like(second.body, { autonomy_level: 'autonomous', default_model: null, timezone: 'Europe/Paris', working_hours: { days: ['sat'], start: '22:00', end: '06:00' } });
  t.deepEqual((await ws.call(path, { token: OWNER })).body, second.body);
  t.is((await ws.call(`/api/v1/workspaces/${w.id}`, { token: OWNER })).body.version, 3);
  await ws.call(path, { method: 'PUT', token: OWNER, json: { timezone: 'Europe/Paris' } });
  t.is((await ws.call(`/api/v1/workspaces/${w.id}`, { token: OWNER })).body.version, 3, 'a PUT that changes nothing writes nothing');
  const activity = await ws.call(`/api/v1/workspaces/${w.id}/activity?kind=workspace.operating_model.updated`, { token: OWNER });
  t.is(activity.body.total, 2);
  t.deepEqual(activity.body.items[1].data.changes.timezone, { from: 'UTC', to: 'Europe/Paris' });
});

test('a bad operating model is refused with the field named, and changes nothing', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const path = `/api/v1/workspaces/${w.id}/operating-model`;
  const cases: [unknown, string[]][] = [
    [{ timezone: 'Mars/Olympus' }, ['timezone']],
    [{ timezone: 5 }, ['timezone']],
    [{ autonomy_level: 'reckless' }, ['autonomy_level']],
    [{ working_hours: { days: ['mon'], start: '9:00', end: '17:00' } }, ['working_hours.start']],
    [{ working_hours: { days: ['funday'], start: '09:00', end: '17:00' } }, ['working_hours.days[0]']],
    [{ working_hours: { days: [], start: '09:00', end: '17:00' } }, ['working_hours.days']],
    [{ working_hours: { days: ['mon'], start: '09:00', end: '09:00' } }, ['working_hours.end']],
    [{ working_hours: { days: ['mon'], start: '09:00', end: '17:00', lunch: '12:00' } }, ['working_hours.lunch']],
    [{ default_agent_id: '' }, ['default_agent_id']],
    [{ timezone: 'UTC', mood: 'calm' }, ['mood']],
  ];
  for (const [body, fields] of cases) {
    const res = await ws.call(path, { method: 'PUT', token: OWNER, json: body });
    t.is(res.status, 422, JSON.stringify(body));
    t.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body));
  }
  t.is((await ws.call(path, { token: OWNER })).body.timezone, 'UTC');
  t.is((await ws.call(`/api/v1/workspaces/${w.id}`, { token: OWNER })).body.version, 1);
});

test('governance defaults to automatic approval with no rules or limits', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const res = await ws.call(`/api/v1/workspaces/${w.id}/governance`, { token: 'member-token' });
  t.is(res.status, 200);
  t.deepEqual(res.body, { approval_mode: 'automatic', rules: [], budget_limits: {}, risk_limits: {}, unassigned_tasks: 'leave' });
});

test('owners and admins set governance; members may read but not change it', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const path = `/api/v1/workspaces/${w.id}/governance`;
  const body = {
    approval_mode: 'risk_based',
    rules: [{ tool: 'web_search', decision: 'allow' }, { tool: 'send_email', decision: 'ask' }, { tool: 'shell', decision: 'deny' }],
    budget_limits: { monthly_usd: 200, per_run_usd: 2.5 },
    risk_limits: { max_risk_level: 'medium' },
    unassigned_tasks: 'master_agent',
  };
  const denied = await ws.call(path, { method: 'PUT', token: 'member-token', json: body });
  t.is(denied.status, 403);
  t.is((await ws.call(path, { token: OWNER })).body.approval_mode, 'automatic');
  const res = await ws.call(path, { method: 'PUT', token: 'admin-token', json: body });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, body);
  const partial = await ws.call(path, { method: 'PUT', token: OWNER, json: { approval_mode: 'follow_default', budget_limits: {} } });
  t.deepEqual(partial.body, { ...body, approval_mode: 'follow_default', budget_limits: {} });
  t.is((await ws.call(`/api/v1/workspaces/${w.id}`, { token: OWNER })).body.version, 3);
  const kinds = (await ws.call(`/api/v1/workspaces/${w.id}/activity`, { token: OWNER })).body.items.map((a: { kind: string }) => a.kind);
  t.deepEqual(kinds, ['workspace.governance.updated', 'workspace.governance.updated', 'workspace.created']);
});

test('bad governance is refused with the field named, and changes nothing', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const path = `/api/v1/workspaces/${w.id}/governance`;
  const cases: [unknown, string[]][] = [
    [{ approval_mode: 'yolo' }, ['approval_mode']],
    [{ rules: [{ tool: 'shell', decision: 'maybe' }] }, ['rules[0].decision']],
    [{ rules: [{ tool: '', decision: 'deny' }] }, ['rules[0].tool']],
    [{ rules: [{ tool: 'shell', decision: 'deny', why: 'x' }] }, ['rules[0].why']],
    [{ rules: [{ tool: 'shell', decision: 'deny' }, { tool: 'shell', decision: 'allow' }] }, ['rules[1].tool']],
    [{ rules: 'deny all' }, ['rules']],
    [{ budget_limits: { monthly_usd: -1 } }, ['budget_limits.monthly_usd']],
    [{ budget_limits: { monthly_usd: '100' } }, ['budget_limits.monthly_usd']],
    [{ budget_limits: { monthly_usd: 10, per_run_usd: 11 } }, ['budget_limits.per_run_usd']],
    [{ budget_limits: { yearly_usd: 10 } }, ['budget_limits.yearly_usd']],
    [{ risk_limits: { max_risk_level: 'extreme' } }, ['risk_limits.max_risk_level']],
    [{ approval_mode: 'automatic', presets: [] }, ['presets']],
  ];
  for (const [body, fields] of cases) {
    const res = await ws.call(path, { method: 'PUT', token: OWNER, json: body });
    t.is(res.status, 422, JSON.stringify(body));
    t.is(res.body.code, 'VALIDATION_FAILED');
    t.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body));
  }
  t.deepEqual((await ws.call(path, { token: OWNER })).body, { approval_mode: 'automatic', rules: [], budget_limits: {}, risk_limits: {}, unassigned_tasks: 'leave' });
  t.is((await ws.call(`/api/v1/workspaces/${w.id}`, { token: OWNER })).body.version, 1);
});
