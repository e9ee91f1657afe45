import { randomUUID } from 'node:crypto';
import type { Context } from 'moleculer';
import { WORKFLOWS_CHECKPOINT_ACTION, type Checkpoint, type DurableAnswer } from './durable.ts';
import { callerMeta, NodeStepError, type NodeRunContext } from './model-step.ts';

/**
 * Child runs of the `subworkflow` and `foreach_subworkflow` node types (durable nodes). Before
 * any child starts, the step commits its continuation as a checkpoint (`continuation`: the
 * child run ids, the workflow version and its snapshot hash, the step id). When the step runs
 * again (its worker died, the run was taken over), the continuation must be there and match
 * the children linked to the step: then the same children are awaited (a missing one is
 * started under its pinned id) and nothing is replayed; an absent or mismatching continuation
 * fails the step, and with it the run, without starting anything (the spec's rule). A retry is
 * a new run: the continuation it carried over from the failed run is that run's, so the
 * retried step starts children of its own.
 */

export const CONTINUATION_KEY = 'continuation';

export interface Continuation {
  /** the run that committed it: a retry carries its receipts over, and a carried continuation is the earlier run's */
  run_id: string;
  step_id: string;
  workflow_id: string;
  version: number;
  snapshot_hash: string;
  child_run_ids: string[];
}

export interface ChildResult {
  run_id: string;
  status: string;
  output: unknown;
  error: { message?: string; code?: string; step_id?: string } | null;
}

interface LinkedChild {
  run_id: string;
  item_index: number;
  snapshot_hash: string;
}

const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/** Seconds one `awaitRun` call waits before the step looks at its deadline and cancel again. */
const AWAIT_SLICE_SECONDS = 30;

/** A refusal from the workflows package as this step's failure, with a code the node declares. */
function refusal(err: unknown, code: string): NodeStepError {
  if (err instanceof NodeStepError) return err;
  const e = err as { message?: string; code?: number; name?: string };
  // a call inside the step inherits the step's deadline (config.timeout)
  if (e?.name === 'RequestTimeoutError') return new NodeStepError('The step did not finish within its timeout (its child runs go on).', 'STEP_TIMEOUT');
  return new NodeStepError(String(e?.message ?? err).slice(0, 2000), code);
}

/** Why the saved continuation does not fit this step and its linked children (undefined: it fits). */
export function continuationProblem(saved: unknown, stepId: string, workflowId: string, count: number, linked: LinkedChild[]): string | undefined {
  const c = saved as Partial<Continuation> | null;
  if (!c || typeof c !== 'object' || !Array.isArray(c.child_run_ids) || typeof c.snapshot_hash !== 'string' || typeof c.version !== 'number') return 'it is malformed';
  if (c.step_id !== stepId) return `it belongs to step '${String(c.step_id)}'`;
  if (c.workflow_id !== workflowId) return `it names workflow '${String(c.workflow_id)}', the step now '${workflowId}'`;
  if (c.child_run_ids.length !== count) return `it names ${c.child_run_ids.length} child run(s), the step now has ${count}`;
  if (new Set(c.child_run_ids).size !== count) return 'it names a child run twice';
  for (const l of linked) {
    const index = c.child_run_ids.indexOf(l.run_id);
    if (index !== l.item_index) return `child run ${l.run_id} of this step is not where it names it`;
    if (l.snapshot_hash !== c.snapshot_hash) return `child run ${l.run_id} runs another snapshot`;
  }
  return undefined;
}

/** Runs the children of one step: continuation first, then each child (at most `concurrency` at once), results in item order. */
export class ChildRunner {
  private readonly meta: ReturnType<typeof callerMeta>;
  /** rejects when the run is cancelled (handled here, so a late abort is no unhandled rejection) */
  private readonly aborted: Promise<never>;

  constructor(
    private readonly ctx: Context,
    private readonly context: NodeRunContext,
    private readonly signal: AbortSignal,
    private readonly deadline: number,
  ) {
    this.meta = callerMeta(context);
    this.aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    this.aborted.catch(() => undefined);
  }

  private call<T>(action: string, params: unknown, code: string, nodeID?: string): Promise<T> {
    return this.ctx.call<T, unknown>(action, params, { meta: this.meta, ...(nodeID ? { nodeID } : {}) }).catch((err: unknown) => Promise.reject(refusal(err, code)));
  }

  private checkBudget(): void {
    if (this.signal.aborted) throw this.signal.reason instanceof NodeStepError ? this.signal.reason : new NodeStepError('The step was interrupted.', 'STEP_INTERRUPTED');
    if (performance.now() > this.deadline) throw new NodeStepError('The step did not finish within its timeout (its child runs go on).', 'STEP_TIMEOUT');
  }

  /** The continuation to run under: the saved one (checked), or a new one committed before any child starts. */
  async continuation(workflowId: string, count: number): Promise<Continuation> {
    const { run_id, step_id } = this.context;
    const found = (this.context.checkpoints ?? []).find((c: Checkpoint) => c.key === CONTINUATION_KEY && c.status === 'completed');
    const saved = (found?.output as Partial<Continuation> | null)?.run_id === run_id ? found : undefined;
    const { children, in_loop_body } = await this.call<{ children: LinkedChild[]; in_loop_body: boolean }>('workflows.childRuns', { run_id, step_id }, 'CHILD_REFUSED');
    if (in_loop_body) throw new NodeStepError(`Step '${step_id}' is in a loop body: its children would be shared by every iteration. Use foreach_subworkflow over the list instead.`, 'IN_LOOP_BODY');
    if (!saved) {
      if (children.length) throw new NodeStepError(`Step '${step_id}' has started child runs but no saved continuation: it is not replayed.`, 'CONTINUATION_MISSING');
      const plan = await this.call<{ workflow_id: string; version: number; snapshot_hash: string }>('workflows.childPlan', { run_id, step_id, workflow_id: workflowId }, 'CHILD_WORKFLOW_NOT_FOUND');
      const continuation: Continuation = { run_id, step_id, workflow_id: plan.workflow_id, version: plan.version, snapshot_hash: plan.snapshot_hash, child_run_ids: Array.from({ length: count }, () => randomUUID()) };
      const answer = await this.call<DurableAnswer>(WORKFLOWS_CHECKPOINT_ACTION, { run_id, step_id, key: CONTINUATION_KEY, status: 'completed', output: continuation }, 'STEP_INTERRUPTED', this.context.engine_node);
      if (answer.stop) throw new NodeStepError(`No child was started: ${answer.reason ?? 'the run was stopped'}.`, 'STEP_INTERRUPTED');
      return continuation;
    }
    const problem = continuationProblem(saved.output, step_id, workflowId, count, children);
    if (problem) throw new NodeStepError(`The saved continuation of step '${step_id}' does not match (${problem}): it is not replayed.`, 'CONTINUATION_MISMATCH');
    return saved.output as Continuation;
  }

  /** Starts (or finds again) child `index` and waits until it finishes. */
  private async one(c: Continuation, index: number, input: unknown): Promise<ChildResult> {
    const run_id = c.child_run_ids[index];
    this.checkBudget();
    await this.call('workflows.startChildRun', { run_id: this.context.run_id, step_id: this.context.step_id, child_run_id: run_id, item_index: index, workflow_id: c.workflow_id, version: c.version, snapshot_hash: c.snapshot_hash, input }, 'CONTINUATION_MISMATCH', this.context.engine_node);
    for (;;) {
      this.checkBudget();
      const seconds = Math.max(0, Math.min(AWAIT_SLICE_SECONDS, (this.deadline - performance.now()) / 1000));
      const run = await Promise.race([this.call<ChildResult & { id: string }>('workflows.awaitRun', { run_id, seconds: Math.ceil(seconds) }, 'CHILD_REFUSED'), this.aborted]);
      if (FINISHED.has(run.status)) return { run_id, status: run.status, output: run.output ?? null, error: run.error ?? null };
    }
  }

  /** Every child, at most `concurrency` at a time; results in item order. A cancelled step cancels its unfinished children. */
  async runAll(c: Continuation, inputs: unknown[], concurrency: number): Promise<ChildResult[]> {
    const results: ChildResult[] = new Array(inputs.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < inputs.length) {
        const i = next++;
        results[i] = await this.one(c, i, inputs[i]);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, inputs.length) }, worker));
    } catch (err) {
      if (this.signal.aborted) await this.cancelChildren(c);
      throw err;
    }
    return results;
  }

  private async cancelChildren(c: Continuation): Promise<void> {
    await Promise.allSettled(c.child_run_ids.map((run_id) => this.ctx.call('workflows.cancelRun', { run_id }, { meta: this.meta })));
  }
}
