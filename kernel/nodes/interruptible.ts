import type { Context } from 'moleculer';
import { NODE_EXECUTE_PARAMS, type NodeTypeDeclaration } from './contract.ts';
import { WORKFLOWS_INTERRUPT_EVENT } from './durable.ts';
import { NodeStepError } from './step-error.ts';

/**
 * Abort controllers of the node steps in flight, by run: `workflows.run.interrupt`
 * ({run_id, reason}) aborts those of that run (a cancel), so the step's work (a provider call, a long list) stops.
 */
export class RunAborts {
  private readonly byRun = new Map<string, Set<AbortController>>();

  track(runId: string): { signal: AbortSignal; release(): void } {
    const controller = new AbortController();
    const set = this.byRun.get(runId) ?? new Set();
    set.add(controller);
    this.byRun.set(runId, set);
    return {
      signal: controller.signal,
      release: () => {
        set.delete(controller);
        if (set.size === 0 && this.byRun.get(runId) === set) this.byRun.delete(runId);
      },
    };
  }

  interrupt(runId: string, reason: string): void {
    for (const c of this.byRun.get(runId) ?? []) c.abort(new NodeStepError(`The step was interrupted: ${reason}`, 'STEP_INTERRUPTED'));
  }
}

/**
 * The service of a node type whose work a run interrupt stops: `node.<type>` with the
 * declaration, an `execute` (no broker timeout: the engine bounds the step by config.timeout)
 * that gets a signal aborted by `workflows.run.interrupt` of its run, and that event's handler.
 */
export function interruptibleNodeService<P>(nodeType: NodeTypeDeclaration, runIdOf: (params: P) => string, run: (ctx: Context<P>, signal: AbortSignal) => Promise<unknown>) {
  const aborts = new RunAborts();
  return {
    name: `node.${nodeType.type}`,
    metadata: { nodeType },
    actions: {
      execute: {
        visibility: 'public',
        timeout: 0,
        params: NODE_EXECUTE_PARAMS,
        async handler(ctx: Context<P>) {
          const tracked = aborts.track(runIdOf(ctx.params));
          try {
            return await run(ctx, tracked.signal);
          } finally {
            tracked.release();
          }
        },
      },
    },
    events: {
      [WORKFLOWS_INTERRUPT_EVENT](ctx: Context<{ run_id?: unknown; reason?: unknown }>) {
        if (typeof ctx.params?.run_id === 'string' && ctx.params.run_id) aborts.interrupt(ctx.params.run_id, String(ctx.params.reason ?? 'the run was interrupted'));
      },
    },
  };
}
