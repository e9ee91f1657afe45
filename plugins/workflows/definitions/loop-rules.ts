import { bodyTargets, doneTargets, loopBodies } from '../engine/loops.ts';
import type { DefinitionProblem, StepDefinition } from './validate.ts';

/**
 * The shape a loop must have for the engine to run it (engine/loops.ts): its body (everything
 * its body targets reach without passing through it, so a body is only ever left back to the
 * loop) leads back to it, is entered only from it, holds no other loop, and its done targets
 * are outside it.
 */
export function loopProblems(steps: StepDefinition[], isLoop: (s: StepDefinition) => boolean): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const bodies = loopBodies(steps, isLoop);
  const byId = new Map(steps.map((s) => [s.id, s]));
  const add = (stepId: string, field: string, type: string, message: string) => problems.push({ field: `steps.${stepId}${field}`, message, type, step_id: stepId });
  for (const [loopId, body] of bodies) {
    const loop = byId.get(loopId)!;
    if (bodyTargets(loop).length && ![...body].some((id) => byId.get(id)!.next.includes(loopId))) {
      add(loopId, '.config.branches.body', 'loop_not_closed', `No step of the body of loop '${loopId}' leads back to it (put '${loopId}' in the next of the body's last step).`);
    }
    for (const id of doneTargets(loop)) if (body.has(id)) add(loopId, '.config.branches.done', 'loop_done_in_body', `Done target '${id}' of loop '${loopId}' is inside its body.`);
    for (const id of body) {
      const step = byId.get(id)!;
      if (isLoop(step)) add(id, '.type', 'nested_loop', `Loop '${id}' is inside the body of loop '${loopId}'; loops do not nest (run the inner one as a separate workflow).`);
    }
    for (const s of steps) {
      if (s.id === loopId || body.has(s.id)) continue;
      for (const next of s.next) if (body.has(next)) add(s.id, '.next', 'loop_body_entered', `Step '${s.id}' leads into '${next}', in the body of loop '${loopId}'; a body is entered only from its loop.`);
    }
  }
  return problems;
}
