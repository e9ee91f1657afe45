import test from 'ava';
import { runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

let k: WorkflowsKernel;
let workspaceId: string;
let otherWorkspace: string;
test.before(async () => {
  k = await startWorkflowsKernel('wf_events', { env: { WORKFLOW_INLINE_WAIT_SECONDS: '0' } });
  workspaceId = await k.createWorkspace('owner-token');
  otherWorkspace = await k.createWorkspace('owner-token');
});
test.after.always(async () => {
  await k?.close();
});

interface SseEvent {
  id?: number;
  event: string;
  data: any;
}

/** Reads SSE frames until the stream ends or `stop` says so. */
async function readSse(res: Response, stop: (e: SseEvent) => boolean = () => false): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const e: Partial<SseEvent> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) e.id = Number(line.slice(4));
        else if (line.startsWith('event: ')) e.event = line.slice(7);
        else if (line.startsWith('data: ')) e.data = JSON.parse(line.slice(6));
      }
      if (!e.event) continue;
      events.push(e as SseEvent);
      if (stop(e as SseEvent)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

const FLOW = {
  name: 'streamed',
  steps: [
    { id: 'start', type: 'trigger', next: ['a'] },
    { id: 'a', type: 'transform', config: { set: { x: 1 } }, next: ['b'] },
    { id: 'b', type: 'transform', config: { set: { y: '{{a.output.x}}' } }, next: [] },
  ],
};

test('run-stream emits the documented events with ids, ending when the run finishes', async (t) => {
  const wf = await k.createWorkflow('owner-token', FLOW);
  const res = await fetch(`${k.kernel.apiUrl}/api/v1/workflows/${wf.id}/run-stream`, { method: 'POST', headers: { authorization: 'Bearer owner-token', 'content-type': 'application/json' }, body: JSON.stringify({ input: { q: 1 } }) });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const events = await readSse(res);
  const durable = events.filter((e) => e.id !== undefined);
  t.deepEqual(durable.map((e) => e.event), ['run.created', 'run.started', 'step.started', 'step.finished', 'step.started', 'step.finished', 'step.started', 'step.finished', 'run.finished']);
  t.deepEqual(durable.map((e) => e.id), durable.map((_, i) => i + 1), 'ids are the run sequence, gap-free');
  t.is(durable.at(-1)!.data.status, 'completed');
  t.deepEqual(durable.filter((e) => e.event === 'step.finished').map((e) => e.data.step_id), ['start', 'a', 'b']);
});

test('GET /runs/{id}/events replays everything after Last-Event-ID, then follows live', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'approval stream',
    steps: [
      { id: 'start', type: 'trigger', next: ['ask'] },
      { id: 'ask', type: 'wait', config: { wait_type: 'approval' }, next: ['after'] },
      { id: 'after', type: 'transform', config: { set: { ok: true } }, next: [] },
    ],
  });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { wait: true } });
  t.is(started.body.status, 'paused');
  const runId = started.body.run_id;
  const url = `${k.kernel.apiUrl}/api/v1/workflows/runs/${runId}/events`;
  const first = await readSse(await fetch(url, { headers: { authorization: 'Bearer owner-token' } }), (e) => e.event === 'run.paused');
  const paused = first.find((e) => e.event === 'run.paused')!;
  t.truthy(paused.id);
  // reconnect after the first two events: everything after them comes again, nothing is missing
  const second = fetch(url, { headers: { authorization: 'Bearer owner-token', 'last-event-id': '2' } }).then((r) => readSse(r));
  await new Promise((r) => setTimeout(r, 300));
  t.is((await k.call(`/api/v1/workflows/runs/${runId}/resume`, { method: 'POST', token: 'owner-token', json: { decision: 'approve' } })).status, 200);
  const rest = (await second).filter((e) => e.id !== undefined);
  t.is(rest[0].id, 3);
  t.deepEqual(rest.map((e) => e.id), rest.map((_, i) => i + 3));
  t.true(rest.some((e) => e.event === 'run.paused'));
  t.is(rest.filter((e) => e.event === 'run.resumed').length, 1, 'the approval resumes the run once, not again when a worker takes it');
  t.is(rest.at(-1)!.event, 'run.finished');
  t.is(rest.at(-1)!.data.status, 'completed');
  t.is((await fetch(url, { headers: { authorization: 'Bearer other-token' } })).status, 404);
});

async function eventBinding(trigger: Record<string, unknown>, workspace = workspaceId): Promise<{ workflowId: string; bindingId: string }> {
  const wf = await k.createWorkflow('owner-token', {
    name: `on ${JSON.stringify(trigger)}`,
    trigger_type: trigger.type,
    steps: [
      { id: 'start', type: 'trigger', next: ['e'] },
      { id: 'e', type: 'end', config: { output: { event: '{{trigger.event}}', payload: '{{trigger.payload}}' } } },
    ],
  });
  const b = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: wf.id, workspace_id: workspace, trigger } });
  if (b.status !== 201) throw new Error(b.text);
  return { workflowId: wf.id, bindingId: b.body.id };
}

test('POST /trigger routes an event to matching enabled event and workspace_event bindings only', async (t) => {
  const entity = await eventBinding({ type: 'event', event: 'invoice.paid' });
  const scoped = await eventBinding({ type: 'workspace_event', event: 'invoice.paid' });
  const elsewhere = await eventBinding({ type: 'workspace_event', event: 'invoice.paid' }, otherWorkspace);
  const otherEvent = await eventBinding({ type: 'event', event: 'invoice.voided' });
  const wildcard = await eventBinding({ type: 'event', event: 'invoice.*' });
  const disabled = await eventBinding({ type: 'event', event: 'invoice.paid' });
  await k.call(`/api/v1/workflows/bindings/${disabled.bindingId}`, { method: 'PUT', token: 'owner-token', json: { enabled: false } });
  const res = await k.call('/api/v1/workflows/trigger', { method: 'POST', token: 'member-token', json: { event: 'invoice.paid', workspace_id: workspaceId, payload: { amount: 5 } } });
  t.is(res.status, 202, res.text);
  const bindings = res.body.runs.map((r: { binding_id: string }) => r.binding_id).sort();
  t.deepEqual(bindings, [entity.bindingId, scoped.bindingId, wildcard.bindingId].sort());
  for (const r of res.body.runs) {
    const run = await runUntil(k, 'owner-token', r.run_id, ['completed']);
    t.deepEqual(run.output, { event: 'invoice.paid', payload: { amount: 5 } });
  }
  void elsewhere;
  void otherEvent;
  const other = await k.call('/api/v1/workflows/trigger', { method: 'POST', token: 'other-token', json: { event: 'invoice.paid' } });
  t.deepEqual(other.body.runs, [], "another entity's event reaches none of these bindings");
});

test('platform events emitted on the broker are routed the same way', async (t) => {
  const { bindingId } = await eventBinding({ type: 'workspace_event', event: 'task.status.changed' });
  k.kernel.broker.emit('task.status.changed', { entity_id: 'e-1', workspace_id: workspaceId, task_id: 't-1', status: 'completed' });
  k.kernel.broker.emit('task.status.changed', { entity_id: 'e-2', workspace_id: workspaceId, task_id: 't-2', status: 'completed' });
  const deadline = Date.now() + 10_000;
  let runs: any;
  while (Date.now() < deadline) {
    runs = await k.call(`/api/v1/workflows/runs?binding_id=${bindingId}`, { token: 'owner-token' });
    if (runs.body?.items?.[0]?.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.is(runs.body?.total, 1, runs.text);
  t.is(runs.body.items[0].output.payload.task_id, 't-1');
});
