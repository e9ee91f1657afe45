import type { PlanStepStatus, PlanView } from '../../kernel/agents-contract.ts';
import { PLAN_MAX_STEPS, PLAN_STEP_STATUSES, PLAN_SUMMARY_MAX } from '../../kernel/agents-contract.ts';
import type { Checkpoint, DurableDecision } from '../../kernel/nodes/durable.ts';
import type { ToolSpec } from '../../kernel/models-generate-contract.ts';

/**
 * The built-in plan tools of a task run: `propose_plan` stores a plan (plugins/goals) that a
 * person approves when the workspace says so (the run parks until then), `update_plan_step`
 * marks a step of the approved plan. A goal's planning run (PlanPort `kind: 'goal'`) is
 * offered `propose_plan` only: its plan is linked to the goal, and its steps are carried out
 * later, not by that run (no delivery review). The plan id is committed as a checkpoint of its own
 * (keys.ts planKey) before the run parks, so a repeat (a crash, a decision) finds the same plan
 * instead of proposing another.
 */

export const PROPOSE_PLAN = 'propose_plan';
export const UPDATE_PLAN_STEP = 'update_plan_step';

export const PLAN_TOOL_SPECS: ToolSpec[] = [
  {
    name: PROPOSE_PLAN,
    description:
      'Propose your plan for this task (or goal) before doing work of several steps: a summary and the ordered steps. A person may have to approve it first; the result says whether it is approved (go ahead) or rejected (say why you stop or propose another).',
    parameters: {
      type: 'object',
      properties: {
        summary: { type: 'string', description: 'What you will do and why, in a few sentences.' },
        steps: {
          type: 'array',
          minItems: 1,
          maxItems: PLAN_MAX_STEPS,
          items: { type: 'object', properties: { title: { type: 'string' }, detail: { type: 'string' } }, required: ['title'], additionalProperties: false },
        },
      },
      required: ['summary', 'steps'],
      additionalProperties: false,
    },
  },
  {
    name: UPDATE_PLAN_STEP,
    description: 'Mark a step of your approved plan (0-based index) in_progress, done or skipped, as you work through it.',
    parameters: {
      type: 'object',
      properties: { index: { type: 'integer', minimum: 0 }, status: { type: 'string', enum: ['in_progress', 'done', 'skipped'] } },
      required: ['index', 'status'],
      additionalProperties: false,
    },
  },
];

/** What the loop needs from the plans package (through the broker in port.ts). */
export interface PlanPort {
  /** `task`: the run carries its plan out; `goal`: the run only produces the goal's plan */
  kind: 'task' | 'goal';
  propose(summary: string, steps: { title: string; detail?: string }[]): Promise<PlanView>;
  get(planId: string): Promise<PlanView>;
  /** decides a pending plan as the person who decided the run; answers the plan as it is after */
  decide(planId: string, decision: DurableDecision): Promise<PlanView>;
  updateStep(planId: string, index: number, status: PlanStepStatus): Promise<PlanView>;
}

export type PlanToolOutcome = { ok: boolean; output?: unknown; error?: { message: string; code: string }; decided_by?: string };
export type PlanToolStep =
  | { outcome: PlanToolOutcome; usedDecision: boolean; planId?: string }
  | { park: PlanView }
  /** a plan just stored: the caller commits its id, then answers as afterProposal says */
  | { stored: PlanView };

const toolError = (message: string, code: string): PlanToolOutcome => ({ ok: false, error: { message, code } });

const NEXT = {
  task: 'Go ahead: follow the plan and mark each step with update_plan_step.',
  goal: "The goal's plan is approved. Its steps are carried out later, not in this run: answer with a short summary of the plan and stop.",
} as const;

function approvedOutcome(plan: PlanView, kind: PlanPort['kind'], decidedBy?: string): PlanToolOutcome {
  return { ok: true, output: { plan_id: plan.id, status: plan.status, steps: plan.steps.map((s, index) => ({ index, title: s.title, status: s.status })), next: NEXT[kind] }, ...(decidedBy ? { decided_by: decidedBy } : {}) };
}

/** A plan as the model is told of it once it is no longer pending. */
function settledOutcome(plan: PlanView, kind: PlanPort['kind'], decision: DurableDecision | undefined): PlanToolOutcome {
  if (plan.status === 'approved' || plan.status === 'completed') return approvedOutcome(plan, kind, decision?.decided_by);
  if (plan.status === 'rejected') {
    const why = plan.decision_comment ? `: ${plan.decision_comment}` : '';
    return { ...toolError(`A person rejected the plan${why}. Do not follow it; propose another or explain why you stop.`, 'PLAN_REJECTED'), decided_by: plan.decided_by ?? decision?.decided_by };
  }
  return toolError(`The plan is ${plan.status}; propose a new one if you still need it.`, 'PLAN_NOT_ACTIVE');
}

function proposalArgs(args: Record<string, unknown>): { summary: string; steps: { title: string; detail?: string }[] } | string {
  const summary = typeof args.summary === 'string' ? args.summary.trim() : '';
  if (!summary) return 'summary: a non-empty string is required.';
  if (summary.length > PLAN_SUMMARY_MAX) return `summary: at most ${PLAN_SUMMARY_MAX} characters.`;
  if (!Array.isArray(args.steps) || args.steps.length === 0 || args.steps.length > PLAN_MAX_STEPS) return `steps: between 1 and ${PLAN_MAX_STEPS} steps are required.`;
  const steps: { title: string; detail?: string }[] = [];
  for (const [i, s] of (args.steps as unknown[]).entries()) {
    const step = s as { title?: unknown; detail?: unknown } | null;
    if (!step || typeof step.title !== 'string' || !step.title.trim()) return `steps[${i}].title: a non-empty string is required.`;
    steps.push({ title: step.title.trim().slice(0, 500), ...(typeof step.detail === 'string' && step.detail.trim() ? { detail: step.detail.slice(0, 5000) } : {}) });
  }
  return { summary, steps };
}

/**
 * `propose_plan`: a first call stores the plan (the caller commits its id before acting on the
 * answer); a repeat reads that plan, applies the
 * person's decision to it when there is one, and parks again while it is still pending.
 */
export async function proposePlanStep(plans: PlanPort, args: Record<string, unknown>, proposed: Checkpoint | undefined, decision: DurableDecision | undefined): Promise<PlanToolStep> {
  const knownId = (proposed?.output as { plan_id?: unknown } | null)?.plan_id;
  if (typeof knownId !== 'string') {
    const parsed = proposalArgs(args);
    if (typeof parsed === 'string') return { outcome: toolError(`The plan was not stored: ${parsed}`, 'INVALID_ARGUMENTS'), usedDecision: false };
    return { stored: await plans.propose(parsed.summary, parsed.steps) };
  }
  let plan = await plans.get(knownId);
  if (plan.status === 'pending' && (decision?.decision === 'approve' || decision?.decision === 'reject')) {
    plan = await plans.decide(plan.id, decision);
    return { outcome: settledOutcome(plan, plans.kind, decision), usedDecision: true, planId: plan.id };
  }
  if (plan.status === 'pending') return { park: plan };
  return { outcome: settledOutcome(plan, plans.kind, decision), usedDecision: decision !== undefined && decision.decision !== 'answer', planId: plan.id };
}

/** The answer to a plan just stored: approved at once, or the run parks for a person. */
export function afterProposal(plan: PlanView, kind: PlanPort['kind']): { outcome: PlanToolOutcome; usedDecision: false; planId: string } | { park: PlanView } {
  if (plan.status === 'pending') return { park: plan };
  return { outcome: approvedOutcome(plan, kind), usedDecision: false, planId: plan.id };
}

/** The plan tools a run is offered: a goal's planning run proposes only. */
export function planToolSpecs(plans: PlanPort | undefined): ToolSpec[] {
  if (!plans) return [];
  return plans.kind === 'goal' ? PLAN_TOOL_SPECS.filter((t) => t.name === PROPOSE_PLAN) : PLAN_TOOL_SPECS;
}

/** `update_plan_step` on the run's current plan; a refusal is the model's to read. */
export async function updatePlanStep(plans: PlanPort, planId: string | undefined, args: Record<string, unknown>): Promise<PlanToolOutcome> {
  if (!planId) return toolError('There is no approved plan in this run; call propose_plan first.', 'NO_PLAN');
  const index = args.index;
  const status = args.status;
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) return toolError('index: a 0-based integer is required.', 'INVALID_ARGUMENTS');
  if (typeof status !== 'string' || !(PLAN_STEP_STATUSES as readonly string[]).includes(status) || status === 'pending') return toolError('status: one of in_progress, done, skipped.', 'INVALID_ARGUMENTS');
  try {
    const plan = await plans.updateStep(planId, index, status as PlanStepStatus);
    return { ok: true, output: { plan_id: plan.id, plan_status: plan.status, steps: plan.steps.map((s, i) => ({ index: i, title: s.title, status: s.status })) } };
  } catch (err) {
    const e = err as { code?: number; message?: string; type?: string };
    if (typeof e.code === 'number' && e.code >= 400 && e.code < 500) return toolError(String(e.message ?? 'refused').slice(0, 2000), e.type ?? 'PLAN_REFUSED');
    throw err;
  }
}
