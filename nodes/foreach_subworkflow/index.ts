import type { Context } from 'moleculer';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { ChildRunner } from '../../kernel/nodes/child-runs.ts';
import { checkResolvedConfig, itemsOf, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { interruptibleNodeService } from '../../kernel/nodes/interruptible.ts';
import { NodeStepError, requireContext } from '../../kernel/nodes/model-step.ts';
import type { Schema } from '../../kernel/json-schema/validate.ts';
import { deadlineOf, SUBWORKFLOW_FAILURES, WORKFLOW_ID_SCHEMA } from '../subworkflow/index.ts';

/** Most elements one step runs a child for. */
export const MAX_CHILDREN = 1000;

/**
 * Workflow node type `foreach_subworkflow`: one child run of another workflow per element of
 * `items` (each child's trigger is its element), at most `concurrency` at a time, outputs in
 * element order. The continuation names every child id before the first starts.
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'foreach_subworkflow',
  version: 1,
  category: 'orchestration',
  title: 'Sub-workflow for Each',
  description: 'Runs another workflow of the entity once per list element as linked child runs, a bounded number at a time; results in element order.',
  config_schema: {
    type: 'object',
    properties: {
      workflow_id: WORKFLOW_ID_SCHEMA,
      items: { type: ['array', 'null'], maxItems: MAX_CHILDREN, default: null, description: `The elements, one child run each (each its child's trigger); null: this step's input, which must then be a list (at most ${MAX_CHILDREN}).`, examples: ['{{fetch.output.body.orders}}'] },
      concurrency: { type: 'integer', minimum: 1, maximum: 20, default: 4, description: 'How many children run at once.', examples: [2] },
      on_child_failure: { type: 'string', enum: ['fail', 'continue'], default: 'fail', description: 'fail: a failed child fails the step (after the children under way finish); continue: its entry in `runs` says so and its result is null.', examples: ['continue'] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    required: ['workflow_id'],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  checkpoints: true,
  side_effect: 'non_idempotent',
  failures: SUBWORKFLOW_FAILURES,
};

interface Config {
  workflow_id: string;
  items?: unknown[] | null;
  concurrency?: number;
  on_child_failure?: 'fail' | 'continue';
  timeout?: number | null;
}

async function execute(ctx: Context<{ config: Config; input?: unknown; context?: unknown }>, signal: AbortSignal): Promise<unknown> {
  const { config } = ctx.params;
  checkResolvedConfig(nodeType.config_schema as Schema, config);
  const items = itemsOf(config.items, ctx.params.input ?? null);
  if (items.length > MAX_CHILDREN) throw new NodeStepError(`${items.length} elements; a step runs at most ${MAX_CHILDREN} children.`, 'BAD_INPUT');
  const context = requireContext(ctx.params.context);
  if (!context.run_id || !context.engine_node) throw new NodeStepError('foreach_subworkflow runs only inside a workflow run driven by the engine.', 'NO_RUN_CONTEXT');
  const runner = new ChildRunner(ctx, context, signal, deadlineOf(config.timeout));
  const continuation = await runner.continuation(config.workflow_id, items.length);
  const children = await runner.runAll(continuation, items, config.concurrency ?? 4);
  const failed = children.filter((c) => c.status !== 'completed');
  if (failed.length && (config.on_child_failure ?? 'fail') === 'fail') {
    const first = failed[0];
    throw new NodeStepError(`${failed.length} of ${children.length} child runs did not complete; run ${first.run_id} ${first.status}${first.error?.message ? `: ${first.error.message}` : ''}.`, 'CHILD_FAILED', { child_run_ids: failed.map((c) => c.run_id) });
  }
  return {
    output: {
      results: children.map((c) => (c.status === 'completed' ? c.output : null)),
      runs: children.map((c) => ({ run_id: c.run_id, status: c.status, error: c.error })),
      failed: failed.length,
    },
    child_runs: children.map((c) => c.run_id),
  };
}

export default interruptibleNodeService<{ config: Config; context?: { run_id?: string } }>(nodeType, (p) => p.context?.run_id ?? '', execute as never);
