import type { Context } from 'moleculer';
import { PLAN_COMPLETED_EVENT, type PlanStep, type PlanUpdateStepParams, type PlanView } from '../../../kernel/agents-contract.ts';
import { invalid, planNotApproved } from '../errors.ts';
import { STEP_STATUS_RULE } from '../fields.ts';
import { emitAfterCommit, loadPlan, type GoalsAction } from '../service.ts';
import { planView } from '../views.ts';
import { planEvent } from './plans-decide.ts';
import { PLAN_ID_PARAM } from './plans-read.ts';

const FINISHED = new Set(['done', 'skipped']);

/**
 * `plans.updateStep` (internal, for the agent runtime): the progress of one step of an approved
 * plan. When every step is done or skipped the plan becomes `completed` (plan.completed).
 */
export const updateStep: GoalsAction = {
  visibility: 'public',
  params: { $$strict: true, ...PLAN_ID_PARAM, index: { type: 'number', integer: true, min: 0, convert: false }, status: STEP_STATUS_RULE },
  async handler(ctx: Context<PlanUpdateStepParams>): Promise<PlanView> {
    const { index, status } = ctx.params;
    const { row, completed } = await this.models.Plan.sequelize!.transaction(async (transaction) => {
      const row = await loadPlan(this, ctx, ctx.params.plan_id, { transaction, lock: true });
      if (row.status !== 'approved') throw planNotApproved(row.id, row.status);
      if (index >= row.steps.length) throw invalid([{ field: 'index', message: `The plan has ${row.steps.length} step(s); index ${index} is past the last (0-based).`, type: 'numberMax' }]);
      if (row.steps[index].status === status) return { row, completed: false };
      const steps: PlanStep[] = row.steps.map((s, i) => (i === index ? { ...s, status } : s));
      const completed = steps.every((s) => FINISHED.has(s.status));
      row.set({ steps, ...(completed ? { status: 'completed' as const } : {}) });
      await row.save({ transaction });
      return { row, completed };
    });
    if (completed) emitAfterCommit(ctx, PLAN_COMPLETED_EVENT, planEvent(row));
    return planView(row);
  },
};
