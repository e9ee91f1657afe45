import test from 'ava';
import { rmSync } from 'node:fs';
import { api, startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { runUntil, startWorkflowsKernel, workflowsRoot, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';

/**
 * Concurrent runs of one binding through the engine (queued runs, worker concurrency 4), each
 * incrementing the shared counter and merging its own key: the document holds every update.
 * Once on PostgreSQL, once on the embedded PGlite default.
 */
const OWNER = 'owner-token';
const RUNS = 12;
const NODES = ['trigger', 'workflow_project'];

async function concurrentRuns(t: import('ava').ExecutionContext, call: WorkflowsKernel['call']): Promise<void> {
  const ws = await call('/api/v1/workspaces', { method: 'POST', token: OWNER, json: { name: 'W' } });
  const wf = await call('/api/v1/workflows', {
    method: 'POST',
    token: OWNER,
    json: {
      name: 'shared counter',
      steps: [
        { id: 'start', type: 'trigger', next: ['count'] },
        { id: 'count', type: 'workflow_project', config: { operation: 'increment', path: 'runs' }, next: ['mark'] },
        { id: 'mark', type: 'workflow_project', config: { operation: 'merge', path: 'seen.{{trigger.k}}', value: { by: '{{trigger.k}}' } }, next: [] },
      ],
    },
  });
  t.is(wf.status, 201, wf.text);
  const binding = await call('/api/v1/workflows/bindings', { method: 'POST', token: OWNER, json: { workflow_id: wf.body.id, workspace_id: ws.body.id, trigger: 'manual' } });
  const starts = await Promise.all(Array.from({ length: RUNS }, (_, i) => call(`/api/v1/workflows/bindings/${binding.body.id}/run`, { method: 'POST', token: OWNER, json: { input: { k: `k${i}` } } })));
  const finished = await Promise.all(starts.map((s) => runUntil({ call } as WorkflowsKernel, OWNER, s.body.run_id, ['completed', 'failed'], 60_000)));
  t.true(finished.every((r) => r.status === 'completed'), JSON.stringify(finished.map((r) => r.error)));
  const versions = new Set(finished.flatMap((r) => r.steps.filter((s: { step_id: string }) => s.step_id !== 'start').map((s: { output: { version: number } }) => s.output.version)));
  t.is(versions.size, RUNS * 2, 'every change saw its own version');
  const counts = finished.map((r) => r.steps.find((s: { step_id: string }) => s.step_id === 'count').output.value).sort((a: number, b: number) => a - b);
  t.deepEqual(counts, Array.from({ length: RUNS }, (_, i) => i + 1), 'each increment saw the one before');
  const marks = finished.map((r) => r.steps.find((s: { step_id: string }) => s.step_id === 'mark').output);
  const last = marks.reduce((a, b) => (a.version > b.version ? a : b));
  t.is(last.version, RUNS * 2);
  t.is(last.document.runs, RUNS);
  t.is(Object.keys(last.document.seen).length, RUNS, 'every merge kept');
}

test.serial('PostgreSQL: concurrent runs of a binding lose no update', async (t) => {
  const k = await startWorkflowsKernel('wf_project_runs', { nodes: NODES });
  try {
    await concurrentRuns(t, k.call);
  } finally {
    await k.close();
  }
});

test.serial('embedded PGlite: concurrent runs of a binding lose no update', async (t) => {
  const root = workflowsRoot({ nodes: NODES });
  let kernel: TestKernel | undefined;
  try {
    kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: '', RATE_LIMIT_PER_MINUTE: '0', WORKFLOW_SWEEP_SECONDS: '1' } });
    const url = kernel.apiUrl;
    await concurrentRuns(t, (path, init) => api(url, path, init));
  } finally {
    await kernel?.close();
    rmSync(root, { recursive: true, force: true });
  }
});
