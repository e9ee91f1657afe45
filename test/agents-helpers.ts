import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestFn } from 'ava';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';

const ROOT = join(import.meta.dirname, '..');

/** The identities of the fixture test-auth package, as `ctx.meta.user` of an internal call. */
export const USERS = {
  owner: { id: 'u-owner', entity_id: 'e-1', role: 'owner' },
  member: { id: 'u-member', entity_id: 'e-1', role: 'member' },
  other: { id: 'u-other', entity_id: 'e-2', role: 'owner' },
} as const;

export interface AgentsKernel {
  kernel: TestKernel;
  db: TestDatabase;
  call(path: string, init?: Parameters<typeof api>[2]): ReturnType<typeof api>;
  /** an internal action as that user (ctx.meta.user) */
  act<T = any>(action: string, params: object, user?: object): Promise<T>;
  /** a workspace of that token's entity (through the real workspaces package) */
  createWorkspace(token: string, name?: string): Promise<string>;
  /** POST /api/v1/agents; throws unless 201 */
  createAgent(token: string, body?: Record<string, unknown>): Promise<any>;
  /** POST /api/v1/goals; throws unless 201 */
  createGoal(token: string, body: Record<string, unknown>): Promise<any>;
  /** events of these names, as emitted, in order */
  events: { name: string; payload: any }[];
}

/**
 * One kernel for a whole test file, on a fresh PostgreSQL database: the fixture identity
 * provider (tokens owner-token, admin-token, member-token of entity e-1; other-token of e-2),
 * plugins/workspaces, plugins/models, plugins/agents and plugins/goals (linked), and a listener
 * recording the agent.* and plan.* events.
 */
export function useAgentsKernel(test: TestFn, label: string): { readonly ak: AgentsKernel } {
  let ak: AgentsKernel | undefined;
  let root: string | undefined;
  test.before(async () => {
    root = mkdtempSync(join(tmpdir(), 'wao-agents-'));
    cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
    for (const name of ['workspaces', 'models', 'agents', 'goals']) symlinkSync(join(ROOT, 'plugins', name), join(root, name), 'dir');
    const db = await createTestDatabase(label);
    let kernel: TestKernel;
    try {
      kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0' } });
    } catch (err) {
      await db.drop();
      throw err;
    }
    const failed = kernel.loader.list().filter((p) => p.state !== 'loaded');
    if (failed.length) throw new Error(`packages failed to load: ${JSON.stringify(failed.map((p) => ({ name: p.name, error: p.error?.message })))}`);
    const events: AgentsKernel['events'] = [];
    const record = (name: string) => (ctx: { params: unknown }) => void events.push({ name, payload: ctx.params });
    const names = ['agent.created', 'agent.updated', 'agent.deleted', 'plan.proposed', 'plan.approved', 'plan.rejected', 'plan.superseded', 'plan.completed'];
    await kernel.broker.createService({ name: 'event-recorder', events: Object.fromEntries(names.map((n) => [n, record(n)])) });
    await kernel.broker.waitForServices(['event-recorder']);
    const call: AgentsKernel['call'] = (path, init) => api(kernel.apiUrl, path, init);
    const created = async (path: string, token: string, json: unknown) => {
      const res = await call(path, { method: 'POST', token, json });
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
      return res.body;
    };
    ak = {
      kernel,
      db,
      call,
      events,
      act: (action, params, user = USERS.owner) => kernel.broker.call(action, params, { meta: { user } }) as Promise<any>,
      async createWorkspace(token, name = 'Workspace') {
        return (await created('/api/v1/workspaces', token, { name })).id as string;
      },
      createAgent: (token, body = {}) => created('/api/v1/agents', token, { name: 'Agent', ...body }),
      createGoal: (token, body) => created('/api/v1/goals', token, { objective: 'Grow', ...body }),
    };
  });
  test.after.always(async () => {
    await ak?.kernel.close();
    await ak?.db.drop();
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return {
    get ak() {
      if (!ak) throw new Error('the agents kernel is not started');
      return ak;
    },
  };
}
