import type { Context } from 'moleculer';

/**
 * What the workspace runtime jobs read, through the owning services' actions as the job's
 * creator (so tenancy applies: only that entity's records), for one workspace and the period
 * since the job's last successful run. Texts are cut so a brief stays a few thousand words.
 */

const cut = (text: unknown, max: number): string => {
  const s = typeof text === 'string' ? text : text == null ? '' : JSON.stringify(text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
};

export interface TaskItem {
  id: string;
  title: string;
  description: string;
  status: string;
  updated_at: string;
}

export interface GoalItem {
  id: string;
  title: string;
  objective: string;
  status: string;
  metrics: { name: string; target: number; current: number | null; unit: string | null }[];
}

export interface PlanItem {
  id: string;
  summary: string;
  status: string;
  steps: { title: string; status: string }[];
}

export interface MessageItem {
  conversation_id: string;
  role: string;
  content: string;
  created_at: string;
}

type Page<T> = { items: T[]; total: number };

/** A list action's page (some answer it as serialised JSON, for their HTTP response). */
async function list<T>(ctx: Context, action: string, params: Record<string, unknown>): Promise<Page<T>> {
  const answer = await ctx.call<Page<T> | string | Buffer, unknown>(action, params);
  return typeof answer === 'string' || Buffer.isBuffer(answer) ? (JSON.parse(answer.toString()) as Page<T>) : answer;
}
const OPEN = ['created', 'proposed', 'pending', 'scheduled', 'in_progress', 'waiting_on_customer', 'on_hold', 'blocked'];

const taskItem = (t: TaskItem): TaskItem => ({ id: t.id, title: cut(t.title, 200), description: cut(t.description, 1500), status: t.status, updated_at: t.updated_at });

/** The workspace's tasks that completed since `since` (the last change of a completed task), leaving out `skipTitle` ones (this job's own). */
export async function completedTasks(ctx: Context, workspaceId: string, since: Date, skipTitle: string): Promise<TaskItem[]> {
  const page = await list<TaskItem>(ctx, 'tasks.list', { workspace: workspaceId, status: ['completed'], sort: '-updated_at', limit: 100, offset: 0 });
  return page.items.filter((t) => Date.parse(t.updated_at) >= since.getTime() && !t.title.startsWith(skipTitle)).map(taskItem);
}

/** The workspace's tasks still open (or failed) now, most recently changed first. */
export async function openTasks(ctx: Context, workspaceId: string, skipTitle: string): Promise<TaskItem[]> {
  const page = await list<TaskItem>(ctx, 'tasks.list', { workspace: workspaceId, status: [...OPEN, 'failed'], sort: '-updated_at', limit: 50, offset: 0 });
  return page.items.filter((t) => !t.title.startsWith(skipTitle)).map(taskItem);
}

export async function goals(ctx: Context, workspaceId: string): Promise<GoalItem[]> {
  const page = await list<GoalItem>(ctx, 'goals.list', { workspace_id: workspaceId, limit: 50, offset: 0 });
  return page.items.map((g) => ({ id: g.id, title: cut(g.title, 200), objective: cut(g.objective, 1000), status: g.status, metrics: (g.metrics ?? []).map((m) => ({ name: m.name, target: m.target, current: m.current, unit: m.unit })) }));
}

export async function plans(ctx: Context, workspaceId: string): Promise<PlanItem[]> {
  const page = await list<PlanItem>(ctx, 'plans.list', { workspace_id: workspaceId, limit: 20, offset: 0 });
  return page.items.map((p) => ({ id: p.id, summary: cut(p.summary, 500), status: p.status, steps: (p.steps ?? []).map((s) => ({ title: cut(s.title, 200), status: s.status })) }));
}

type RawMessage = { conversation_id: string; role: string; content: unknown; created_at: string | null };
const messageItem = (m: RawMessage): MessageItem => ({ conversation_id: m.conversation_id, role: m.role, content: cut(m.content, 2000), created_at: m.created_at ?? '' });
const after = (since: Date) => (m: RawMessage) => m.created_at !== null && Date.parse(m.created_at) >= since.getTime() && (m.role === 'user' || m.role === 'assistant');

/**
 * The workspace's conversations since `since`: its shared thread, and the creator's direct
 * conversations held in that workspace (the latest 100 messages of each, at most 5 conversations).
 */
export async function conversations(ctx: Context, workspaceId: string, since: Date): Promise<MessageItem[]> {
  const out: MessageItem[] = [];
  const head = await list<RawMessage>(ctx, 'chat.workspaceMessages', { workspace_id: workspaceId, limit: 1, offset: 0 });
  if (head.total) {
    const thread = await list<RawMessage>(ctx, 'chat.workspaceMessages', { workspace_id: workspaceId, limit: 100, offset: Math.max(0, head.total - 100) });
    out.push(...thread.items.filter(after(since)).map(messageItem));
  }
  const mine = await list<{ id: string; workspace_id: string | null; updated_at: string }>(ctx, 'chat.listConversations', { limit: 50, offset: 0 });
  const recent = mine.items.filter((c) => c.workspace_id === workspaceId && Date.parse(c.updated_at) >= since.getTime()).slice(0, 5);
  for (const c of recent) {
    const first = await list<RawMessage>(ctx, 'chat.listMessages', { conversation_id: c.id, limit: 1, offset: 0 });
    const page = await list<RawMessage>(ctx, 'chat.listMessages', { conversation_id: c.id, limit: 100, offset: Math.max(0, first.total - 100) });
    out.push(...page.items.filter(after(since)).map(messageItem));
  }
  return out;
}

/** A section of a brief: a heading and the records as JSON lines, or "(none)". */
export function section(heading: string, records: unknown[]): string {
  return `## ${heading}\n${records.length ? records.map((r) => JSON.stringify(r)).join('\n') : '(none)'}`;
}
