import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';

const ROOT = join(import.meta.dirname, '..');
export const NODE_TYPES = readdirSync(join(ROOT, 'nodes'));

export interface WorkflowsKernel {
  kernel: TestKernel;
  db: TestDatabase;
  /** the package root the kernel loads (test-auth, workspaces, workflows, every node type) */
  root: string;
  call(path: string, init?: Parameters<typeof api>[2]): ReturnType<typeof api>;
  createWorkspace(token: string): Promise<string>;
  createWorkflow(token: string, body: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/**
 * Lays out a package root for a workflows test: the fixture identity provider (copied), and
 * plugins/workspaces, plugins/workflows and every nodes/* package (linked, so their relative
 * kernel imports resolve).
 */
export function workflowsRoot(opts: { nodes?: string[]; plugins?: string[]; links?: string[]; extra?: Record<string, Record<string, string>> } = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'wao-wf-'));
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
  symlinkSync(join(ROOT, 'plugins', 'workspaces'), join(root, 'workspaces'), 'dir');
  symlinkSync(join(ROOT, 'plugins', 'workflows'), join(root, 'workflows'), 'dir');
  for (const name of opts.plugins ?? []) symlinkSync(join(ROOT, 'plugins', name), join(root, name), 'dir');
  for (const name of opts.nodes ?? NODE_TYPES) symlinkSync(join(ROOT, 'nodes', name), join(root, `node-${name}`), 'dir');
  for (const path of opts.links ?? []) symlinkSync(join(ROOT, path), join(root, path.replace(/[/\\]/g, '-')), 'dir');
  for (const [name, files] of Object.entries(opts.extra ?? {})) {
    mkdirSync(join(root, name));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(root, name, file), text);
  }
  return root;
}

export async function startWorkflowsKernel(label: string, opts: { env?: Record<string, string>; nodes?: string[]; plugins?: string[]; links?: string[]; db?: TestDatabase; extra?: Record<string, Record<string, string>> } = {}): Promise<WorkflowsKernel> {
  const root = workflowsRoot(opts);
  const db = opts.db ?? (await createTestDatabase(label));
  let kernel: TestKernel;
  try {
    kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', WORKFLOW_SWEEP_SECONDS: '1', ...opts.env } });
  } catch (err) {
    await db.drop();
    throw err;
  }
  const failed = kernel.loader.list().filter((p) => p.state !== 'loaded' && p.state !== 'skipped');
  if (failed.length) throw new Error(`packages failed to load: ${JSON.stringify(failed)}`);
  const call: WorkflowsKernel['call'] = (path, init) => api(kernel.apiUrl, path, init);
  return {
    kernel,
    db,
    root,
    call,
    async createWorkspace(token) {
      const res = await call('/api/v1/workspaces', { method: 'POST', token, json: { name: 'Workspace' } });
      if (res.status !== 201) throw new Error(`workspace create answered ${res.status}: ${res.text}`);
      return res.body.id;
    },
    async createWorkflow(token, body) {
      const res = await call('/api/v1/workflows', { method: 'POST', token, json: body });
      if (res.status !== 201) throw new Error(`workflow create answered ${res.status}: ${res.text}`);
      return res.body;
    },
    async close() {
      await kernel.close();
      if (!opts.db) await db.drop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A three-step manual workflow: trigger -> transform -> end. */
export function linearWorkflow(name = 'linear'): Record<string, unknown> {
  return {
    name,
    steps: [
      { id: 'start', type: 'trigger', config: {}, next: ['shape'] },
      { id: 'shape', type: 'transform', config: { set: { greeting: 'hello {{trigger.name}}', raw: '{{trigger}}', region: '{{region}}' } }, next: ['finish'] },
      { id: 'finish', type: 'end', config: {}, next: [] },
    ],
    variables: { region: 'eu' },
  };
}

/** Polls a run until its status is one of the given ones; returns its detail. */
export async function runUntil(k: WorkflowsKernel, token: string, runId: string, statuses: string[], timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = await k.call(`/api/v1/workflows/runs/${runId}`, { token });
    if (last.status === 200 && statuses.includes(last.body.status)) return last.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${runId} did not reach ${statuses.join('/')} in time: ${JSON.stringify(last?.body)}`);
}

/** receipt of a step in a run detail */
export function receipt(run: any, stepId: string): any {
  return run.steps.find((s: { step_id: string }) => s.step_id === stepId);
}

/** A test-only node type `sleep` (config `ms`): a slow node that knows nothing of timeouts. */
export const SLEEP_NODE: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'test-node-sleep', version: '1.0.0', type: 'module', capability: { kind: 'node', roles: ['api', 'work'] } }),
  'index.js': `export default {
  name: 'node.sleep',
  metadata: { nodeType: { type: 'sleep', version: 1, category: 'test', config_schema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'], additionalProperties: false }, outputs: ['main'], uncertain_effect: false } },
  actions: { execute: { params: { config: 'object', input: { type: 'any', optional: true }, inputs: { type: 'object', optional: true }, context: { type: 'object', optional: true } },
    async handler(ctx) { await new Promise((r) => setTimeout(r, ctx.params.config.ms)); return { output: { slept: ctx.params.config.ms } }; } } },
};
`,
};
