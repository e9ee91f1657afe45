import type { Context, ServiceBroker } from 'moleculer';
import { AGENTS_MASTER_ACTION, AGENTS_RESOLVE_ACTION, type AgentView, type PlanEventPayload } from '../../kernel/agents-contract.ts';
import { WORKFLOWS_DECIDE_ACTION, WORKFLOWS_START_INTERNAL_RUN_ACTION, type RunSettled } from '../../kernel/nodes/durable.ts';

/** `task.run.requested` as plugins/tasks emits it (ops/dispatch.ts). */
export interface RunRequested {
  entity_id: string;
  task_id: string;
  workspace_id: string | null;
  agent_id: string | null;
  reason: 'assigned_at_creation' | 'unassigned_at_creation' | 'assigned' | 'mention' | 'retry';
  dispatch_id: string;
  requested_by: string | null;
  log_id?: string;
  /** a mention's comment, as written */
  comment?: string;
}

interface TaskView {
  id: string;
  title: string;
  description: string | null;
  status: string;
  priority: number;
  workspace_id: string | null;
  pending_request: { id: string; kind: string; run_id?: string } | null;
}

const asUser = (entityId: string, userId: string | null) => ({ meta: { user: { id: userId, entity_id: entityId, role: 'member' } } });

/** What the agent is asked: the task as a person would read it (and the comment that mentioned the agent). */
export function taskPrompt(task: TaskView, reason: RunRequested['reason'], comment?: string): string {
  const lines = [`You are working on the task "${task.title}" (priority ${task.priority} of 5, status ${task.status}).`];
  if (task.description) lines.push('', task.description);
  if (reason === 'retry') lines.push('', 'An earlier attempt failed; try again.');
  if (reason === 'mention' && comment) lines.push('', 'You were mentioned in this comment on the task:', '', comment);
  lines.push(
    '',
    'Do the work with the tools you have. For work of several steps, first propose your plan with propose_plan and follow it once approved, marking each step with update_plan_step. When you are done, answer with a short report of what you did. If you cannot go on without information only a person has, use ask_human.',
  );
  return lines.join('\n');
}

/**
 * A run request: picks the agent (the one named, else the workspace's master agent), starts a
 * durable run `trigger -> agent` on the work queue, and moves the task to in_progress. A task
 * with no agent to run it gets a note in its execution record instead.
 */
export async function startTaskRun(broker: ServiceBroker, req: RunRequested): Promise<string | undefined> {
  const opts = asUser(req.entity_id, req.requested_by);
  const task = await broker.call<TaskView, { id: string }>('tasks.get', { id: req.task_id }, opts);
  const agent = req.agent_id
    ? await broker.call<AgentView, { agent_id: string }>(AGENTS_RESOLVE_ACTION, { agent_id: req.agent_id }, opts).catch(() => undefined)
    : task.workspace_id
      ? await broker.call<AgentView | null, { workspace_id: string }>(AGENTS_MASTER_ACTION, { workspace_id: task.workspace_id }, opts)
      : undefined;
  const scope = { entity_id: req.entity_id, task_id: req.task_id, agent_id: agent?.id ?? req.agent_id };
  if (!agent || agent.status !== 'active') {
    const why = req.agent_id ? `agent ${req.agent_id} is not available` : 'the workspace has no master agent';
    await broker.call('task-runs.record', { ...scope, entries: [{ kind: 'note', data: { dispatch_id: req.dispatch_id, message: `No run started: ${why}.` } }] }, opts);
    return undefined;
  }
  const started = await broker.call<{ run_id: string }, unknown>(
    WORKFLOWS_START_INTERNAL_RUN_ACTION,
    {
      kind: 'agent',
      subject_id: agent.id,
      subject_version: agent.version,
      name: `${agent.name}: ${task.title}`.slice(0, 200),
      workspace_id: task.workspace_id,
      steps: [
        { id: 'start', type: 'trigger', next: ['agent'] },
        // the prompt holds what people wrote (title, description, a comment): a whole-string template of the trigger, so braces in it stay text
        { id: 'agent', type: 'agent', config: { agent_id: agent.id, prompt: '{{trigger.prompt}}', task_id: task.id } },
      ],
      trigger: { agent_id: agent.id, task_id: task.id, dispatch_id: req.dispatch_id, reason: req.reason, prompt: taskPrompt(task, req.reason, req.comment) },
    },
    opts,
  );
  await broker.call('task-runs.record', { ...scope, run_id: started.run_id, entries: [{ kind: 'note', data: { dispatch_id: req.dispatch_id, state: 'started', run_id: started.run_id } }] }, opts);
  if (task.status !== 'in_progress') {
    await broker.call('task-runs.setStatus', { ...scope, run_id: started.run_id, status: 'in_progress' }, opts).catch((err: Error) => broker.logger.warn({ err, task_id: task.id }, 'could not move the task to in_progress'));
  }
  return started.run_id;
}

/** Where a worker left an agent run: the task follows (state machine moves, requests, the report). */
export async function applySettled(broker: ServiceBroker, r: RunSettled): Promise<void> {
  const taskId = typeof r.trigger?.task_id === 'string' ? r.trigger.task_id : null;
  if (!taskId) return;
  const agentId = typeof r.trigger?.agent_id === 'string' ? r.trigger.agent_id : null;
  const opts = asUser(r.entity_id, r.owner_id);
  const scope = { entity_id: r.entity_id, task_id: taskId, agent_id: agentId, run_id: r.run_id };
  const move = (status: string) => broker.call('task-runs.setStatus', { ...scope, status }, opts).catch((err: Error) => broker.logger.warn({ err, task_id: taskId, status }, 'the task could not follow its run'));
  const note = (data: Record<string, unknown>) => broker.call('task-runs.record', { ...scope, entries: [{ kind: 'note', data }] }, opts);
  if (r.status === 'completed') {
    const report = (r.output as { text?: unknown } | null)?.text;
    await note({ state: 'completed', report: typeof report === 'string' ? report.slice(0, 20_000) : null });
    await move('completed');
  } else if (r.status === 'failed') {
    const code = r.error?.code ?? 'error';
    await note({ state: 'failed', reason: code === 'AGENT_ROUND_CAP' ? 'round_cap' : code, message: r.error?.message ?? 'The run failed.' });
    await move('failed');
  } else if (r.status === 'paused' && r.pause?.kind === 'runtime_approval' && reviewPauseOf(r.pause.request)) {
    const review = reviewPauseOf(r.pause.request)!;
    await broker.call('task-runs.pauseForReview', { ...scope, plan_id: review.plan_id, state_version: review.state_version }, opts);
  } else if (r.status === 'paused' && r.pause?.kind === 'runtime_approval') {
    await broker.call('task-runs.raiseRequest', { ...scope, kind: 'approval', prompt: (r.pause.message ?? 'An action needs your approval.').slice(0, 20_000), options: ['approve', 'reject'] }, opts);
  } else if (r.status === 'paused' && r.pause?.kind === 'question') {
    await broker.call('task-runs.raiseRequest', { ...scope, kind: 'hitl', prompt: (r.pause.message ?? 'The agent has a question.').slice(0, 20_000) }, opts);
    await move('waiting_on_customer');
  }
}

/** The plan and state version of a run paused in delivery review (nodes/agent delivery-review.ts), else null. */
function reviewPauseOf(request: unknown): { plan_id: string; state_version: number } | null {
  const r = request as { action?: unknown; details?: { plan_id?: unknown; state_version?: unknown } } | null;
  if (r?.action !== 'delivery_review' || typeof r.details?.plan_id !== 'string' || typeof r.details.state_version !== 'number') return null;
  return { plan_id: r.details.plan_id, state_version: r.details.state_version };
}

/**
 * A person resumed a run paused in delivery review (the task checked the plan and state version
 * they saw): the run goes on with a fresh review budget. Nothing else is approved by it.
 */
export async function resumeFromReview(ctx: Context, p: { entity_id: string; run_id: string | null; resumed_by?: { id: string | null } }): Promise<void> {
  if (!p.run_id) return;
  await ctx.call(WORKFLOWS_DECIDE_ACTION, { run_id: p.run_id, decision: 'approve', comment: 'delivery review resumed' }, asUser(p.entity_id, p.resumed_by?.id ?? null));
}

/** A person decided a task's approval request or answered its question: the parked run goes on. */
export async function resumeFromTask(ctx: Context, p: { entity_id: string; run_id: string | null; decision?: 'approve' | 'reject'; response?: string; comment?: string | null; decided_by?: { id: string | null }; answered_by?: { id: string | null } }): Promise<void> {
  if (!p.run_id) return;
  const who = p.decided_by?.id ?? p.answered_by?.id ?? null;
  const params = p.response !== undefined ? { run_id: p.run_id, decision: 'answer', answer: p.response } : { run_id: p.run_id, decision: p.decision, ...(p.comment ? { comment: p.comment } : {}) };
  await ctx.call(WORKFLOWS_DECIDE_ACTION, params, asUser(p.entity_id, who));
}

/**
 * A person decided a plan through its own route (`POST /plans/{id}/approve|reject`): the run that
 * proposed it goes on. A task run's decision goes through the task's approval request, so the
 * task and the run agree; a run without a task is decided directly.
 */
export async function resumeFromPlan(ctx: Context, p: PlanEventPayload): Promise<void> {
  if (p.automatic || !p.run_id || !p.decided_by) return;
  const decision = p.status === 'approved' ? 'approve' : 'reject';
  const opts = asUser(p.entity_id, p.decided_by);
  if (p.task_id) {
    const task = await ctx.call<TaskView, { id: string }>('tasks.get', { id: p.task_id }, opts);
    if (task.pending_request?.kind !== 'approval' || task.pending_request.run_id !== p.run_id) return;
    await ctx.call('task-runs.approval', { id: p.task_id, request_id: task.pending_request.id, decision, ...(p.comment ? { comment: p.comment } : {}) }, opts);
    return;
  }
  await ctx.call(WORKFLOWS_DECIDE_ACTION, { run_id: p.run_id, decision, ...(p.comment ? { comment: p.comment } : {}) }, opts);
}
