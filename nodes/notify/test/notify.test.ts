import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';
import { startSmtpSink } from './smtp-sink.ts';
import { validateOpenApi } from '../../../kernel/openapi/validate.ts';

let k: WorkflowsKernel;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let workspaceId: string;
test.before(async () => {
  smtp = await startSmtpSink();
  k = await startWorkflowsKernel('node_notify', {
    plugins: ['notifications'],
    env: { EMAIL_ENABLED: 'true', SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_FROM: 'flows@wao.test' },
  });
  workspaceId = await k.createWorkspace('owner-token');
});
test.after.always(async () => {
  await k?.close();
  await smtp?.close();
});

let n = 0;
async function run(steps: Record<string, unknown>[], input: unknown = {}) {
  const wf = await k.createWorkflow('owner-token', { name: `notify ${++n}`, steps });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input, workspace_id: workspaceId } });
  if (started.status !== 202) throw new Error(`run start answered ${started.status}: ${started.text}`);
  return runUntil(k, 'owner-token', started.body.run_id, ['completed', 'failed', 'paused']);
}
const notifyStep = (config: Record<string, unknown>) => [{ id: 'start', type: 'trigger', next: ['tell'] }, { id: 'tell', type: 'notify', config, next: [] }];

test.serial('in-app: the notification lands in the entity inbox with its workspace and run, once', async (t) => {
  const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'in-app.workflow.json'), 'utf8'));
  const done = await run(fixture.steps, fixture.input);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const out = receipt(done, 'tell').output;
  t.like(out, { channel: 'in_app' });
  const inbox = await k.call('/api/v1/notifications', { token: 'member-token' });
  t.is(inbox.status, 200, inbox.text);
  const mine = inbox.body.items.filter((x: { id: string }) => x.id === out.notification_id);
  t.is(mine.length, 1);
  t.like(mine[0], { workspace_id: workspaceId, title: 'Invoice overdue', message: fixture.expect_message, read_at: null, source: { kind: 'workflow', run_id: done.id, step_id: 'tell' } });
  const other = await k.call('/api/v1/notifications', { token: 'other-token' });
  t.false(other.body.items.some((x: { id: string }) => x.id === out.notification_id), 'another entity sees none of it');
  t.is((await k.call(`/api/v1/notifications/${out.notification_id}/read`, { method: 'POST', token: 'other-token' })).status, 404);
});

test.serial('in-app: marking read is idempotent and the unread filter follows it', async (t) => {
  const done = await run(notifyStep({ message: 'read me' }));
  const id = receipt(done, 'tell').output.notification_id;
  const first = await k.call(`/api/v1/notifications/${id}/read`, { method: 'POST', token: 'owner-token' });
  t.is(first.status, 200, first.text);
  t.truthy(first.body.read_at);
  const again = await k.call(`/api/v1/notifications/${id}/read`, { method: 'POST', token: 'owner-token' });
  t.is(again.body.read_at, first.body.read_at);
  const unread = await k.call('/api/v1/notifications?unread=true', { token: 'owner-token' });
  t.false(unread.body.items.some((x: { id: string }) => x.id === id));
  t.is((await k.call('/api/v1/notifications/not-a-uuid/read', { method: 'POST', token: 'owner-token' })).status, 404);
  t.is((await k.call('/api/v1/notifications?limit=0', { token: 'owner-token' })).status, 422);
});

test.serial('email: sent through the SMTP server to every recipient, subject and text as configured', async (t) => {
  const before = smtp.received.length;
  const done = await run(notifyStep({ channel: 'email', to: ['a@example.test', 'b@example.test'], title: 'Weekly {{trigger.what}}', message: 'All {{trigger.count}} done.' }), { what: 'report', count: 3 });
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.like(receipt(done, 'tell').output, { channel: 'email', accepted: ['a@example.test', 'b@example.test'], rejected: [] });
  t.is(smtp.received.length, before + 1);
  const mail = smtp.received.at(-1)!;
  t.is(mail.from, 'flows@wao.test');
  t.deepEqual(mail.to, ['a@example.test', 'b@example.test']);
  t.regex(mail.data, /Subject: Weekly report/);
  t.regex(mail.data, /All 3 done\./);
});

test.serial('the node declares its effect uncertain: a step in flight when its worker dies is never sent twice', async (t) => {
  const types = await k.call('/api/v1/workflows/node-types', { token: 'owner-token' });
  const notify = types.body.items.find((x: { type: string }) => x.type === 'notify');
  t.is(notify.uncertain_effect, true);
});

test.serial('bad configs are refused at save with 422 naming the step and field', async (t) => {
  for (const [config, field] of [
    [{}, 'steps.tell.config.message'],
    [{ message: '' }, 'steps.tell.config.message'],
    [{ message: 'x', channel: 'pigeon' }, 'steps.tell.config.channel'],
    [{ message: 'x', channel: 'email' }, 'steps.tell.config.to'],
    [{ message: 'x', channel: 'email', to: ['not an address'] }, 'steps.tell.config.to.0'],
    [{ message: 'x', channel: 'email', to: [] }, 'steps.tell.config.to'],
    [{ message: 'x', recipients: 'all' }, 'steps.tell.config.recipients'],
    [{ message: 'x'.repeat(10_001) }, 'steps.tell.config.message'],
  ] as const) {
    const res = await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { name: 'bad', steps: notifyStep(config as Record<string, unknown>) } });
    t.is(res.status, 422, JSON.stringify(config));
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), `${field}: ${JSON.stringify(res.body.errors)}`);
  }
});

test.serial('the notification routes are in a valid OpenAPI document', async (t) => {
  const doc = await k.call('/api/openapi.json');
  t.truthy(doc.body.paths['/api/v1/notifications']?.get);
  t.truthy(doc.body.paths['/api/v1/notifications/{id}/read']?.post);
  await t.notThrowsAsync(validateOpenApi(doc.body));
});
