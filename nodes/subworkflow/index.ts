import type { Context } from 'moleculer';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { ChildRunner } from '../../kernel/nodes/child-runs.ts';
import { checkResolvedConfig, COMMON_STEP_FAILURES, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { interruptibleNodeService } from '../../kernel/nodes/interruptible.ts';
import { NodeStepError, requireContext } from '../../kernel/nodes/model-step.ts';
import type { Schema } from '../../kernel/json-schema/validate.ts';

/** Step failures of the sub-workflow node types (foreach_subworkflow adds none of its own). */
export const SUBWORKFLOW_FAILURES: Record<string, string> = {
  ...COMMON_STEP_FAILURES,
  NO_RUN_CONTEXT: 'the step ran outside a workflow run driven by the engine',
  CHILD_WORKFLOW_NOT_FOUND: "no workflow with that id in the run's entity (another entity's is not found either), or nesting deeper than 5",
  CHILD_FAILED: 'a child run failed or was cancelled; the message carries its error',
  CONTINUATION_MISSING: 'the step ran again with child runs linked to it but no saved continuation: nothing is replayed',
  CONTINUATION_MISMATCH: 'the saved continuation does not match the step, its children or the pinned workflow version: nothing is replayed',
  CHILD_REFUSED: 'the workflows package refused to report on a child run',
  IN_LOOP_BODY: 'the step is in the body of a loop (its children would be shared by every iteration): use foreach_subworkflow over the list',
};

/** config_schema of `workflow_id`, shared with foreach_subworkflow. */
export const WORKFLOW_ID_SCHEMA = {
  type: 'string',
  pattern: '^[0-9a-fA-F-]{36}$',
  description: 'The workflow to run (its current version when the step first runs), of the same entity.',
  examples: ['0190b3a2-7c1e-7d4a-9f1b-2c3d4e5f6a7b'],
} as const;

/**
 * Workflow node type `subworkflow`: runs another workflow of the entity as a child run (trigger
 * type `subworkflow`, its trigger the `input`), linked to this step (trace: child_runs; GET
 * /runs/{id}/family: children), and outputs the child's output. The step waits for the child;
 * a failed or cancelled child fails the step. A durable node: continuation rules in
 * kernel/nodes/child-runs.ts.
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'subworkflow',
  version: 1,
  category: 'orchestration',
  title: 'Execute Sub-workflow',
  description: "Runs another workflow of the entity as a linked child run with the given input and outputs the child's result.",
  config_schema: {
    type: 'object',
    properties: {
      workflow_id: WORKFLOW_ID_SCHEMA,
      input: { default: null, description: "The child's trigger payload (templates allowed); null: this step's input.", examples: [{ customer: '{{trigger.customer}}' }] },
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
  input?: unknown;
  timeout?: number | null;
}

/** When the step must end: config.timeout from now, else never. */
export function deadlineOf(timeout: unknown): number {
  return typeof timeout === 'number' && timeout > 0 ? performance.now() + timeout * 1000 : Infinity;
}

async function execute(ctx: Context<{ config: Config; input?: unknown; context?: unknown }>, signal: AbortSignal): Promise<unknown> {
  const { config } = ctx.params;
  checkResolvedConfig(nodeType.config_schema as Schema, config);
  const context = requireContext(ctx.params.context);
  if (!context.run_id || !context.engine_node) throw new NodeStepError('subworkflow runs only inside a workflow run driven by the engine.', 'NO_RUN_CONTEXT');
  const runner = new ChildRunner(ctx, context, signal, deadlineOf(config.timeout));
  const continuation = await runner.continuation(config.workflow_id, 1);
  const [child] = await runner.runAll(continuation, [config.input ?? ctx.params.input ?? null], 1);
  if (child.status !== 'completed') throw new NodeStepError(`Child run ${child.run_id} ${child.status}${child.error?.message ? `: ${child.error.message}` : ''}.`, 'CHILD_FAILED', { child_run_id: child.run_id });
  return { output: child.output, child_runs: [child.run_id] };
}

export default interruptibleNodeService<{ config: Config; context?: { run_id?: string } }>(nodeType, (p) => p.context?.run_id ?? '', execute as never);
