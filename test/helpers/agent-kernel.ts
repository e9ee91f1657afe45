import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestFn } from 'ava';
import { api, startTestKernel, type TestKernel } from './kernel.ts';
import { createTestDatabase, type TestDatabase } from './pg.ts';
import { startScriptedProvider, type ScriptedProvider } from './scripted-provider.ts';
import { eventually } from './eventually.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every package an agent run touches, linked from the repository (their relative kernel imports resolve). */
const PACKAGES = [
  ['plugins', 'workspaces'], ['plugins', 'tasks'], ['plugins', 'models'], ['plugins', 'workflows'], ['plugins', 'agents'],
  ['plugins', 'agent-runtime'], ['nodes', 'trigger'], ['nodes', 'agent'], ['tools', 'datetime'], ['tools', 'tasks'],
] as const;

/** A temp folder holding the fixture identity provider and every package an agent run touches (remove it afterwards). */
export function agentPackagesRoot(extra: readonly (readonly [string, string])[] = []): string {
  const root = mkdtempSync(join(tmpdir(), 'wao-agent-'));
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
  for (const [folder, name] of [...PACKAGES, ...extra]) symlinkSync(join(ROOT, folder, name), join(root, `${folder}-${name}`), 'dir');
  return root;
}

export interface AgentKernel {
  kernel: TestKernel;
  db: TestDatabase;
  provider: ScriptedProvider;
  call(path: string, init?: Parameters<typeof api>[2]): ReturnType<typeof api>;
  /** a workspace, a default model key and an agent bound to `tools`, for that token's entity */
  setup(token: string, agent?: Record<string, unknown>): Promise<{ workspace_id: string; agent_id: string; key_id: string }>;
  /** waits until the task reaches one of these statuses; answers the task */
  taskReaches(token: string, taskId: string, statuses: string[]): Promise<any>;
}

/**
 * One kernel for a test file: the fixture identity provider (owner-token, member-token of e-1;
 * other-token of e-2), workspaces, tasks, models (pointed at a scripted provider over real
 * HTTP), workflows, agents, the agent runtime, the trigger and agent node types and two tools.
 */
export function useAgentKernel(test: TestFn, label: string, env: Record<string, string> = {}, extraPackages: readonly (readonly [string, string])[] = []): { readonly ak: AgentKernel } {
  let ak: AgentKernel | undefined;
  let root: string | undefined;
  test.before(async () => {
    root = agentPackagesRoot(extraPackages);
    const db = await createTestDatabase(label);
    const provider = await startScriptedProvider();
    let kernel: TestKernel;
    try {
      kernel = await startTestKernel({
        roots: [root],
        env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', MODEL_OPENAI_BASE_URL: `${provider.url}/v1`, MODEL_ANTHROPIC_BASE_URL: provider.url, WORKFLOW_SWEEP_SECONDS: '1', ...env },
      });
    } catch (err) {
      await Promise.all([db.drop(), provider.close()]);
      throw err;
    }
    const failed = kernel.loader.list().filter((p) => p.state !== 'loaded');
    if (failed.length) throw new Error(`packages failed to load: ${JSON.stringify(failed.map((p) => ({ name: p.name, error: p.error?.message })))}`);
    const call: AgentKernel['call'] = (path, init) => api(kernel.apiUrl, path, init);
    const must = async (path: string, token: string, json: unknown) => {
      const res = await call(path, { method: 'POST', token, json });
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
      return res.body;
    };
    ak = {
      kernel,
      db,
      provider,
      call,
      async setup(token, agent = {}) {
        const workspace = await must('/api/v1/workspaces', token, { name: 'Ops' });
        const key = await must('/api/v1/api-keys', token, { name: 'Key', provider: 'openai', api_key: 'sk-test-0123456789abcdef', default_model: 'gpt-test', is_default: true });
        const created = await must('/api/v1/agents', token, { name: 'Helper', instructions: 'You help.', workspace_id: workspace.id, tools: ['datetime', 'tasks'], ...agent });
        return { workspace_id: workspace.id, agent_id: created.id, key_id: key.id };
      },
      async taskReaches(token, taskId, statuses) {
        let task: any;
        await eventually(async () => {
          task = (await call(`/api/v1/tasks/${taskId}`, { token })).body;
          return statuses.includes(task?.status);
        }, { timeoutMs: 20_000 });
        return task;
      },
    };
  });
  test.after.always(async () => {
    await ak?.kernel.close();
    await Promise.all([ak?.db.drop(), ak?.provider.close()]);
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return {
    get ak() {
      if (!ak) throw new Error('the agent kernel is not started');
      return ak;
    },
  };
}
