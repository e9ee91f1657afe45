import { loopBodiesOf } from './engine/loops.ts';
import type { NodeTypeRegistry } from './engine/node-types.ts';
import type { RunRow } from './store/run-types.ts';

/**
 * Whether a step of the run's snapshot is in a loop body. Durable state keyed by run and step
 * (a sub-workflow's continuation, a grant's use) would be shared by every iteration there, so
 * those node types refuse to work in one.
 */
export function inLoopBody(nodeTypes: NodeTypeRegistry, run: RunRow, stepId: string): boolean {
  const steps = run.snapshot?.steps ?? [];
  for (const body of loopBodiesOf(steps, (s) => Boolean(nodeTypes.get(s.type)?.description.loop)).values()) if (body.has(stepId)) return true;
  return false;
}
