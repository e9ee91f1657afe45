import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../../test/helpers/eventually.ts';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';

let k: WorkflowsKernel;
test.before(async () => {
  // one sandbox slot: a snippet still running would hold up every later one
  k = await startWorkflowsKernel('node_code', { links: ['sandbox/runner'], env: { SANDBOX_CONCURRENCY: '1', SANDBOX_TIMEOUT_SECONDS: '120', SANDBOX_MEMORY_MB: '32' } });
});
test.after.always(async () => k?.close());

let n = 0;
async function start(steps: Record<string, unknown>[], input: unknown = {}): Promise<string> {
  const wf = await k.createWorkflow('owner-token', { name: `code ${++n}`, steps });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input } });
  if (started.status !== 202) throw new Error(`run start answered ${started.status}: ${started.text}`);
  return started.body.run_id;
}
const run = async (steps: Record<string, unknown>[], input: unknown = {}) => runUntil(k, 'owner-token', await start(steps, input), ['completed', 'failed', 'paused'], 60_000);
const codeStep = (config: Record<string, unknown>) => [{ id: 'start', type: 'trigger', next: ['code'] }, { id: 'code', type: 'code', config, next: [] }];
const sandboxStatus = () => k.kernel.broker.call('sandbox.status') as Promise<{ running: number; waiting: number; languages: string[] }>;

for (const file of readdirSync(join(import.meta.dirname, 'fixtures')).filter((f) => f.endsWith('.workflow.json'))) {
  test.serial(`fixture ${file}: every step's output is the expected one`, async (t) => {
    const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', file), 'utf8'));
    const done = await run(fixture.steps, fixture.input);
    t.is(done.status, 'completed', JSON.stringify(done.error));
    for (const [step, output] of Object.entries(fixture.expect)) t.deepEqual(receipt(done, step).output, output, step);
  });
}

test.serial('the n8n dialect gets $workflow.id and $execution.id from the run, $workflow.name from the input, and is not active without a binding', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: `code ${++n}`,
    steps: codeStep({ dialect: 'n8n', input: { mode: 'all', items: [], workflow: { name: 'Orders', id: 'forged' }, execution: { id: 'forged' } }, code: 'return [{ w: $workflow, e: $execution.id }];' }),
  });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: {} } });
  t.is(started.status, 202, started.text);
  const done = await runUntil(k, 'owner-token', started.body.run_id, ['completed', 'failed'], 60_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(receipt(done, 'code').output, [{ w: { id: wf.id, name: 'Orders', active: false }, e: started.body.run_id }]);
});

test.serial('a syntax error fails the step with SANDBOX_ERR_SYNTAX and the line', async (t) => {
  const done = await run(codeStep({ code: 'const a = 1;\nreturn a +;' }));
  t.is(done.status, 'failed');
  const failed = receipt(done, 'code');
  t.is(failed.status, 'failed');
  t.is(failed.error.code, 'SANDBOX_ERR_SYNTAX');
  t.regex(failed.error.message, /line 2/);
});

test.serial('a memory bomb and a huge output fail the step with their codes', async (t) => {
  const bomb = await run(codeStep({ code: 'const a = []; for (;;) a.push(new Array(100000).fill(1.5));' }));
  t.is(receipt(bomb, 'code').error.code, 'SANDBOX_ERR_MEMORY_LIMIT');
  const huge = await run(codeStep({ code: 'return "x".repeat(2 * 1024 * 1024);' }));
  t.is(receipt(huge, 'code').error.code, 'SANDBOX_ERR_OUTPUT_TOO_LARGE');
});

test.serial('config.timeout stops an infinite loop and frees the sandbox', async (t) => {
  const done = await run(codeStep({ code: 'for (;;) {}', timeout: 0.5 }));
  t.is(done.status, 'failed');
  t.true(['SANDBOX_ERR_TIME_LIMIT', 'STEP_TIMEOUT'].includes(receipt(done, 'code').error.code), JSON.stringify(receipt(done, 'code').error));
  t.like(await eventually(async () => ((await sandboxStatus()).running === 0 ? sandboxStatus() : null)), { running: 0, waiting: 0 });
  const next = await run(codeStep({ code: 'return 7;' }));
  t.is(receipt(next, 'code').output, 7);
});

test.serial('cancelling the run stops its snippet in the sandbox', async (t) => {
  const runId = await start(codeStep({ code: 'for (;;) {}' }));
  t.truthy(await eventually(async () => (await sandboxStatus()).running === 1, { timeoutMs: 30_000 }), 'the snippet started');
  const cancelled = await k.call(`/api/v1/workflows/runs/${runId}/cancel`, { method: 'POST', token: 'owner-token' });
  t.is(cancelled.status, 200, cancelled.text);
  // SANDBOX_TIMEOUT_SECONDS is 120: only the cancel can free the slot this soon
  t.like(await eventually(async () => ((await sandboxStatus()).running === 0 ? sandboxStatus() : null)), { running: 0 });
  const next = await run(codeStep({ code: 'return "after";' }));
  t.is(receipt(next, 'code').output, 'after');
});

test.serial('bad configs are refused at save with 422 naming the step and field', async (t) => {
  const save = (config: Record<string, unknown>) => k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { name: 'bad', steps: codeStep(config) } });
  for (const [config, field] of [
    [{}, 'steps.code.config.code'],
    [{ code: '' }, 'steps.code.config.code'],
    [{ code: 5 }, 'steps.code.config.code'],
    [{ code: 'return 1', shell: true }, 'steps.code.config.shell'],
    [{ code: 'return 1', timeout: -1 }, 'steps.code.config.timeout'],
    [{ code: 'x'.repeat(100_001) }, 'steps.code.config.code'],
    [{ code: 'return $json', dialect: 'zapier' }, 'steps.code.config.dialect'],
  ] as const) {
    const res = await save(config as Record<string, unknown>);
    t.is(res.status, 422, JSON.stringify(config));
    t.is(res.body.code, 'WORKFLOWS_ERR_INVALID_DEFINITION');
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), `${field}: ${JSON.stringify(res.body.errors)}`);
  }
});

test.serial('without a Docker engine another language is refused at save, naming config.language', async (t) => {
  const res = await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { name: 'py', steps: codeStep({ code: 'result = 1', language: 'python' }) } });
  t.is(res.status, 422);
  const problem = res.body.errors.find((e: { field: string }) => e.field === 'steps.code.config.language');
  t.truthy(problem, JSON.stringify(res.body.errors));
  t.regex(problem.message, /must be one of "javascript"/);
  const types = await k.call('/api/v1/workflows/node-types', { token: 'owner-token' });
  const code = types.body.items.find((x: { type: string }) => x.type === 'code');
  t.deepEqual(code.config_schema.properties.language.enum, ['javascript']);
});

test.serial('run-node runs a snippet standalone; its failure is 422 with the sandbox code', async (t) => {
  const ok = await k.call('/api/v1/workflows/run-node', { method: 'POST', token: 'owner-token', json: { type: 'code', config: { code: 'return input.a * 2' }, input: { a: 21 } } });
  t.is(ok.status, 200, ok.text);
  t.is(ok.body.output, 42);
  const bad = await k.call('/api/v1/workflows/run-node', { method: 'POST', token: 'owner-token', json: { type: 'code', config: { code: 'throw new Error("no")' } } });
  t.is(bad.status, 422);
  t.regex(bad.body.detail, /Error: no/);
});
