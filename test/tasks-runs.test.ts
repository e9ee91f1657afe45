import test from 'ava';
import type { Context } from 'moleculer';
import { useTasksKernel } from './helpers/tasks-kernel.ts';
import { eventually } from './helpers/eventually.ts';

const events: { name: string; params: any }[] = [];
const fixture = useTasksKernel(test, 'tasks_runs', {}, (tk) => {
  tk.kernel.broker.createService({
    name: 'task-event-recorder',
    events: { 'task.**': (ctx: Context) => void events.push({ name: ctx.eventName!, params: ctx.params }) },
  });
});
const owner = 'owner-token';

const post = (id: string, route: string, json: Record<string, unknown> = {}) => fixture.tk.call(`/api/v1/tasks/${id}/${route}`, { method: 'POST', token: owner, json });
const internal = (action: string, params: Record<string, unknown>) => fixture.tk.kernel.broker.call(`task-runs.${action}`, { entity_id: 'e-1', ...params }) as Promise<any>;
const read = async (id: string) => (await fixture.tk.call(`/api/v1/tasks/${id}`, { token: owner })).body;

async function failedTask(assignee?: Record<string, unknown>): Promise<any> {
  const task = await fixture.tk.createTask(owner, assignee ? { assignee } : {});
  await internal('setStatus', { task_id: task.id, status: 'in_progress', agent_id: 'a-1', run_id: 'r-1' });
  await internal('setStatus', { task_id: task.id, status: 'failed', agent_id: 'a-1', run_id: 'r-1' });
  return task;
}

test('retry re-runs a failed task: back to pending, its agent dispatched, recorded', async (t) => {
  const task = await failedTask({ type: 'agent', id: 'a-1' });
  const res = await post(task.id, 'retry', { regenerate_plan: true });
  t.is(res.status, 200, res.text);
  t.like(res.body, { status: 'pending' });
  const record = (await read(task.id)).execution_record;
  const kinds = record.map((e: any) => e.kind);
  t.deepEqual(kinds, ['dispatch', 'status_change', 'status_change', 'dispatch']);
  t.like(record[3].data, { agent_id: 'a-1', reason: 'retry', plan: 'regenerate', state: 'dispatched' });
  await eventually(async () => events.some((e) => e.name === 'task.run.requested' && e.params.task_id === task.id && e.params.reason === 'retry'));
  t.pass();
});

test('retry of a task that did not fail is a 409 and changes nothing', async (t) => {
  const task = await fixture.tk.createTask(owner);
  await post(task.id, 'move', { status: 'in_progress' });
  const res = await post(task.id, 'retry');
  t.is(res.status, 409, res.text);
  t.like(res.body, { code: 'TASKS_ERR_ILLEGAL_TRANSITION', current_status: 'in_progress' });
  t.like(await read(task.id), { status: 'in_progress', version: 2, execution_record: [] });
});

test('a HITL answer needs a pending question of that kind; the answer is recorded and emitted', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const none = await post(task.id, 'hitl-response', { response: 'yes' });
  t.is(none.status, 409);
  t.is(none.body.code, 'TASKS_ERR_NO_PENDING_REQUEST');
  const raised = await internal('raiseRequest', { task_id: task.id, kind: 'hitl', prompt: 'Which region?', options: ['eu', 'us'], run_id: 'r-9' });
  t.like(raised.pending_request, { kind: 'hitl', prompt: 'Which region?' });
  const wrongKind = await post(task.id, 'approval', { decision: 'approve' });
  t.is(wrongKind.status, 409, 'an approval is not an answer to a question');
  const wrongId = await post(task.id, 'hitl-response', { response: 'eu', request_id: 'another' });
  t.is(wrongId.status, 409);
  const ok = await post(task.id, 'hitl-response', { response: 'eu', request_id: raised.pending_request.id });
  t.is(ok.status, 200, ok.text);
  t.is(ok.body.pending_request, null);
  const twice = await post(task.id, 'hitl-response', { response: 'eu' });
  t.is(twice.status, 409, 'answered once only');
  const record = (await read(task.id)).execution_record;
  t.like(record.at(-1), { kind: 'hitl_response', data: { request_id: raised.pending_request.id, response: 'eu', answered_by: { type: 'user', id: 'u-owner' } } });
  await eventually(async () => events.some((e) => e.name === 'task.hitl.responded' && e.params.task_id === task.id && e.params.response === 'eu'));
  t.pass();
});

test('an approval decision needs a pending approval; it is recorded and emitted', async (t) => {
  const task = await fixture.tk.createTask(owner);
  t.is((await post(task.id, 'approval', { decision: 'approve' })).status, 409);
  const raised = await internal('raiseRequest', { task_id: task.id, kind: 'approval', prompt: 'Send the invoice?' });
  const again = await internal('raiseRequest', { task_id: task.id, kind: 'hitl', prompt: 'x' }).catch((e) => e);
  t.is(again.code, 409, 'one pending request at a time');
  const bad = await post(task.id, 'approval', { decision: 'maybe' });
  t.is(bad.status, 422);
  const ok = await post(task.id, 'approval', { decision: 'reject', comment: 'not yet' });
  t.is(ok.status, 200, ok.text);
  t.like((await read(task.id)).execution_record.at(-1), { kind: 'approval_decision', data: { request_id: raised.pending_request.id, decision: 'reject', comment: 'not yet' } });
  await eventually(async () => events.some((e) => e.name === 'task.approval.decided' && e.params.task_id === task.id && e.params.decision === 'reject'));
  t.pass();
});

test('resume-delivery-review: a mismatch is a conflict that changes nothing; a match resumes without approving or completing', async (t) => {
  const task = await fixture.tk.createTask(owner);
  await post(task.id, 'move', { status: 'in_progress' });
  const noReview = await post(task.id, 'resume-delivery-review', { expected_plan_id: 'p-1', expected_state_version: 3 });
  t.is(noReview.status, 409);
  t.is(noReview.body.code, 'TASKS_ERR_REVIEW_MISMATCH');
  await internal('raiseRequest', { task_id: task.id, kind: 'approval', prompt: 'Publish the files?' });
  await internal('pauseForReview', { task_id: task.id, plan_id: 'p-1', state_version: 3, run_id: 'r-2' });
  const before = await read(task.id);

  for (const body of [{ expected_plan_id: 'p-2', expected_state_version: 3 }, { expected_plan_id: 'p-1', expected_state_version: 2 }]) {
    const res = await post(task.id, 'resume-delivery-review', body);
    t.is(res.status, 409, JSON.stringify(body));
    t.like(res.body, { code: 'TASKS_ERR_REVIEW_MISMATCH', current_plan_id: 'p-1', current_state_version: 3 });
  }
  t.deepEqual(await read(task.id), before, 'the refused resumes changed nothing');

  const ok = await post(task.id, 'resume-delivery-review', { expected_plan_id: 'p-1', expected_state_version: 3 });
  t.is(ok.status, 200, ok.text);
  t.like(ok.body, { status: 'in_progress', delivery_review: { state: 'resumed', plan_id: 'p-1', state_version: 3 }, pending_request: { kind: 'approval' } });
  const again = await post(task.id, 'resume-delivery-review', { expected_plan_id: 'p-1', expected_state_version: 3 });
  t.is(again.status, 409, 'a resumed review is not paused any more');
});

test('runs move tasks only through the machine and append to the execution record', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const illegal = await internal('setStatus', { task_id: task.id, status: 'completed', agent_id: 'a-1' }).catch((e) => e);
  t.is(illegal.code, 409);
  t.is(illegal.type, 'TASKS_ERR_ILLEGAL_TRANSITION');
  await internal('record', { task_id: task.id, agent_id: 'a-1', run_id: 'r-3', entries: [{ kind: 'plan_step', data: { step: 1, text: 'read' } }, { kind: 'tool_call', data: { tool: 'http', ok: true } }] });
  const withFiles = await internal('addOutputFiles', { task_id: task.id, agent_id: 'a-1', files: [{ name: 'report.pdf', object_key: 'x/report.pdf', size: 10 }] });
  t.is(withFiles.output_files[0].name, 'report.pdf');
  const view = await read(task.id);
  t.deepEqual(view.execution_record.map((e: any) => e.kind), ['plan_step', 'tool_call']);
  const history = (await fixture.tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner })).body.items;
  t.like(history.at(-1), { action: 'output_files_added', actor: { type: 'agent', id: 'a-1' } });
  const otherEntity = await fixture.tk.kernel.broker.call('task-runs.record', { entity_id: 'e-2', task_id: task.id, entries: [{ kind: 'note', data: {} }] }).catch((e) => e);
  t.is((otherEntity as { code: number }).code, 404);
});

test("another entity's task: every run route is a 404", async (t) => {
  const task = await failedTask();
  for (const [route, json] of [
    ['retry', {}],
    ['hitl-response', { response: 'x' }],
    ['approval', { decision: 'approve' }],
    ['resume-delivery-review', { expected_plan_id: 'p', expected_state_version: 1 }],
  ] as const) {
    const res = await fixture.tk.call(`/api/v1/tasks/${task.id}/${route}`, { method: 'POST', token: 'other-token', json });
    t.is(res.status, 404, route);
  }
  t.like(await read(task.id), { status: 'failed' });
});
