import test from 'ava';
import type { WorkflowsService } from '../plugins/workflows/service.ts';
import { useAgentKernel } from './helpers/agent-kernel.ts';

/**
 * One process never drives one run twice. While an agent run's model turn is in flight here,
 * its lease lapses and the sweep lets it go (lease_owner NULL), and two more queue entries of
 * the run arrive: neither takes the run a second time, the drive in progress keeps it (its
 * commits go on) and no model turn or tool call is repeated. No periodic sweep or lease renewal
 * runs during the test: only the statements it calls move the lease.
 */
const kernel = useAgentKernel(test, 'agent_double_drive', { WORKFLOW_LEASE_SECONDS: '600', WORKFLOW_SWEEP_SECONDS: '3600' });
const OWNER = 'owner-token';

test('two queue entries and a lapsed lease of a run driven here do not drive it again: no model turn or tool call repeated', async (t) => {
  const { ak } = kernel;
  const svc = ak.kernel.broker.getLocalService('workflows') as unknown as WorkflowsService;
  const { agent_id, workspace_id } = await ak.setup(OWNER);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // the first model turn is held until the test lets it answer
  ak.provider.replies.push(() => released.then(() => ({ text: 'Checking.', tool_calls: [{ name: 'datetime', arguments: { op: 'now', zone: 'UTC' } }] })));
  ak.provider.replies.push({ text: 'It is now.' });
  const firstTurn = ak.provider.nextRequest();
  const before = ak.provider.requests.length;
  const created = await ak.call('/api/v1/tasks', { method: 'POST', token: OWNER, json: { title: 'What time is it?', workspace_id, assignee: { type: 'agent', id: agent_id } } });
  t.is(created.status, 201, created.text);
  await firstTurn;
  const executions = await ak.call(`/api/v1/executions?task_id=${created.body.id}`, { token: OWNER });
  const runId: string = executions.body.items[0].id;
  t.truthy(svc.engine.activeRun(runId), 'the run is driven in this process');

  // the lease lapses and the sweep lets the run go, as when this process stalled past its lease
  await svc.sql.exec("UPDATE workflow_runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [runId]);
  const swept = await svc.runs.sweep(600);
  t.true(swept.some((r) => r.id === runId), 'the sweep let the run go');
  // two queue entries of the run (the sweep's and a duplicate) are executed here meanwhile
  const entries = await Promise.all([svc.engine.execute(runId), svc.engine.execute(runId)]);
  t.deepEqual(entries, [undefined, undefined], 'neither entry drove the run');
  const lease = await svc.sql.one<{ lease_owner: string | null }>('SELECT lease_owner FROM workflow_runs WHERE id = $1', [runId]);
  t.is(lease?.lease_owner, svc.engine.owner, 'the lease is back with the drive in progress');

  release();
  const task = await ak.taskReaches(OWNER, created.body.id, ['completed', 'failed']);
  t.is(task.status, 'completed');
  t.is(ak.provider.requests.length - before, 2, 'two model turns, none repeated');
  const toolCalls = (task.execution_record as { kind: string; data: { name?: string } }[]).filter((e) => e.kind === 'tool_call' && e.data.name === 'datetime');
  t.is(toolCalls.length, 1, 'the tool ran once');
  const done = await ak.call(`/api/v1/executions?task_id=${created.body.id}`, { token: OWNER });
  t.like(done.body.items[0], { status: 'completed', rounds: 2, tool_calls: 1 });
  const starts = await svc.sql.rows<{ n: number }>("SELECT count(*)::int AS n FROM workflow_run_events WHERE run_id = $1 AND type IN ('run.started', 'run.resumed')", [runId]);
  t.is(starts[0].n, 1, 'the run was taken once');
  // an entry after the run finished takes nothing
  t.is(await svc.engine.execute(runId), undefined);
  t.is(ak.provider.requests.length - before, 2);
});
