import type { Context } from 'moleculer';
import { AGENTS_RESOLVE_ACTION, type AgentView } from '../../kernel/agents-contract.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { identityOf } from '../../kernel/tenancy/identity.ts';
import { WORKFLOWS_START_INTERNAL_RUN_ACTION } from '../../kernel/nodes/durable.ts';

/** A goal as `goals.get` answers it (the fields a planning run reads). */
interface GoalView {
  id: string;
  workspace_id: string;
  title: string;
  objective: string;
  metrics: { name: string; target: number; unit?: string | null; current?: number | null; direction?: string }[];
  status: string;
  agent_id: string | null;
  due_at: string | null;
}

const invalid = (field: string, message: string, type: string) => ERRORS.VALIDATION_FAILED(message, [{ field, message, type }]);

/** What the agent is asked: the goal as a person would read it, and to propose a plan for it. */
export function goalPrompt(goal: GoalView, note: string | undefined): string {
  const lines = [`Produce a plan for the goal "${goal.title}".`, '', 'Objective:', goal.objective];
  if (goal.metrics.length) {
    lines.push('', 'Metrics:');
    for (const m of goal.metrics) {
      const unit = m.unit ? ` ${m.unit}` : '';
      lines.push(`- ${m.name}: target ${m.target}${unit} (${m.direction ?? 'increase'}; now ${m.current ?? 'unknown'})`);
    }
  }
  if (goal.due_at) lines.push('', `Due: ${goal.due_at}.`);
  if (note) lines.push('', 'The person asking adds:', note);
  lines.push(
    '',
    'Look up what you need with your tools, then propose the plan with propose_plan: a summary and the ordered steps that reach the objective. A person may have to approve it first. Do not carry the steps out; once the plan is settled, answer with a short summary of it.',
  );
  return lines.join('\n');
}

const RUN_STARTED = {
  type: 'object',
  properties: {
    run_id: { type: 'string', description: 'The planning run: in GET /api/v1/executions (reason `goal_plan`, `goal_id` set), its steps at GET /api/v1/workflows/runs/{run_id}.' },
    goal_id: { type: 'string' },
    agent_id: { type: 'string' },
  },
  required: ['run_id', 'goal_id', 'agent_id'],
};

/**
 * `POST /api/v1/goals/{goal_id}/plan` `{agent_id?, note?}`: starts a durable agent run whose
 * `propose_plan` stores the goal's plan (plugins/goals), pending a person's approval when the
 * workspace's governance or operating model says so (the run parks until it is decided on
 * `POST /plans/{id}/approve|reject`). The agent is the one given, else the goal's owner agent.
 */
export const planGoal = {
  rest: 'POST /:goal_id/plan',
  summary: 'Have an agent produce a plan for a goal',
  description:
    "Starts an agent run on the work queue (202): the agent (`agent_id`, else the goal's owner agent; active, of the goal's workspace or entity-wide) reads the goal and proposes a plan with `propose_plan`. The plan is linked to the goal and needs approval when the workspace's governance (`approval_mode` confirm_changes or risk_based) or operating model (`autonomy_level` suggest or supervised) says so; the run waits for the decision, then ends. A newer proposal supersedes the goal's older pending plans. Another entity's goal or agent is 404; no agent is 422.",
  tags: ['goals'],
  params: { $$strict: true, goal_id: { type: 'uuid' }, agent_id: { type: 'uuid', optional: true }, note: { type: 'string', max: 10_000, optional: true } },
  response: { 202: { description: 'The planning run started', schema: RUN_STARTED } },
  async handler(ctx: Context<{ goal_id: string; agent_id?: string; note?: string }>): Promise<{ run_id: string; goal_id: string; agent_id: string }> {
    const who = identityOf(ctx);
    const goal = await ctx.call<GoalView, { goal_id: string }>('goals.get', { goal_id: ctx.params.goal_id });
    const agentId = ctx.params.agent_id ?? goal.agent_id;
    if (!agentId) throw invalid('agent_id', 'Name the agent that plans: the goal has no owner agent.', 'required');
    const agent = await ctx.call<AgentView, { agent_id: string }>(AGENTS_RESOLVE_ACTION, { agent_id: agentId });
    if (agent.workspace_id && agent.workspace_id !== goal.workspace_id) throw invalid('agent_id', `Agent '${agent.id}' belongs to another workspace than the goal.`, 'reference');
    if (agent.status !== 'active') throw invalid('agent_id', `Agent '${agent.name}' is disabled.`, 'disabled');
    if (goal.status !== 'active') throw ERRORS.CONFLICT(`The goal is ${goal.status}: only an active goal is planned.`, { current_status: goal.status });
    const started = await ctx.call<{ run_id: string }, unknown>(WORKFLOWS_START_INTERNAL_RUN_ACTION, {
      kind: 'agent',
      subject_id: agent.id,
      subject_version: agent.version,
      name: `${agent.name}: plan for ${goal.title}`.slice(0, 200),
      workspace_id: goal.workspace_id,
      steps: [
        { id: 'start', type: 'trigger', next: ['agent'] },
        // what people wrote reaches the agent as a whole-string template of the trigger: braces stay text
        { id: 'agent', type: 'agent', config: { agent_id: agent.id, prompt: '{{trigger.prompt}}', goal_id: goal.id } },
      ],
      trigger: { agent_id: agent.id, goal_id: goal.id, reason: 'goal_plan', requested_by: who.id, prompt: goalPrompt(goal, ctx.params.note) },
    });
    (ctx.meta as { $statusCode?: number }).$statusCode = 202;
    return { run_id: started.run_id, goal_id: goal.id, agent_id: agent.id };
  },
};
