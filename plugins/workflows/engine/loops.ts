import type { StepDefinition } from '../definitions/validate.ts';
import type { ReceiptRow } from '../store/run-types.ts';
import { SETTLED, type PlanReceipt } from './plan.ts';

/**
 * Loops: the one cycle a definition may have goes from a loop step (a type declaring `loop`)
 * through its body branch back to it. Its body is every step reachable from the body targets
 * without passing through the loop step; body steps run once per iteration.
 *
 * Receipts: a body step's receipt of iteration i is stored as `<step>@<i>` (`@` never occurs
 * in a step id); when every body step of the iteration has settled, the same commit stores the
 * iteration's receipt `<loop>@<i>` (output: what the steps leading back to the loop gave) and,
 * after the last iteration, the loop step's own receipt again with the done branch taken and
 * every iteration's output. The executor sees the current iteration's body receipts under their
 * plain ids; a resumed run continues at the first iteration without its receipt, from the
 * body receipts of it already committed.
 */
export const ITERATION_SEPARATOR = '@';

/** A receipt id without its iteration (`fetch@3` -> `fetch`). */
export function logicalStepId(stored: string): string {
  const at = stored.indexOf(ITERATION_SEPARATOR);
  return at < 0 ? stored : stored.slice(0, at);
}

/** The iteration of a stored receipt id, or undefined for a step's own receipt. */
export function iterationOf(stored: string): number | undefined {
  const at = stored.indexOf(ITERATION_SEPARATOR);
  return at < 0 ? undefined : Number(stored.slice(at + 1));
}

/** What the loop node answers and its receipt keeps: the list and how it is cut. */
export interface LoopBase {
  items: unknown[];
  batch_size: number;
  iterations: number;
}

/** The loop step's output as the body sees it during iteration i. */
export function iterationView(base: LoopBase, i: number): Record<string, unknown> {
  const batch = base.items.slice(i * base.batch_size, (i + 1) * base.batch_size);
  return { item: batch[0] ?? null, items: batch, index: i * base.batch_size, iteration: i, iterations: base.iterations, total: base.items.length };
}

const BODIES = new WeakMap<StepDefinition[], Map<string, Set<string>>>();

/** loopBodies, once per steps array (a run's snapshot never changes). */
export function loopBodiesOf(steps: StepDefinition[], isLoop: (s: StepDefinition) => boolean): Map<string, Set<string>> {
  let known = BODIES.get(steps);
  if (!known) {
    known = loopBodies(steps, isLoop);
    BODIES.set(steps, known);
  }
  return known;
}

/** Each loop step's body, from the steps and which of them are loop steps. */
export function loopBodies(steps: StepDefinition[], isLoop: (s: StepDefinition) => boolean): Map<string, Set<string>> {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const bodies = new Map<string, Set<string>>();
  for (const loop of steps.filter(isLoop)) {
    const body = new Set<string>();
    const starts = bodyTargets(loop);
    const walk = (id: string): void => {
      if (id === loop.id || body.has(id) || !byId.has(id)) return;
      body.add(id);
      for (const n of byId.get(id)!.next) walk(n);
    };
    starts.forEach(walk);
    bodies.set(loop.id, body);
  }
  return bodies;
}

/** A loop step's body targets (`config.branches.body`). */
export function bodyTargets(loop: StepDefinition): string[] {
  const body = (loop.config?.branches as { body?: unknown } | undefined)?.body;
  return [body].flat().filter((t): t is string => typeof t === 'string');
}

/** A loop step's done targets (`config.branches.done`). */
export function doneTargets(loop: StepDefinition): string[] {
  const done = (loop.config?.branches as { done?: unknown } | undefined)?.done;
  return [done].flat().filter((t): t is string => typeof t === 'string');
}

export const LOOP_DONE = 'done';

/**
 * The loops of one run: the current iteration of each, the outputs of its finished iterations,
 * which body step a receipt id belongs to, and the receipts that end an iteration.
 */
export class LoopState {
  readonly bodies: Map<string, Set<string>>;
  /** the loop a body step belongs to */
  private readonly loopOfStep = new Map<string, string>();
  private readonly iteration = new Map<string, number>();
  private readonly results = new Map<string, unknown[]>();

  constructor(private readonly steps: ReadonlyMap<string, StepDefinition>, bodies: Map<string, Set<string>>) {
    this.bodies = bodies;
    for (const [loop, body] of bodies) for (const id of body) this.loopOfStep.set(id, loop);
  }

  get empty(): boolean {
    return this.bodies.size === 0;
  }

  loopOf(stepId: string): string | undefined {
    return this.loopOfStep.get(stepId);
  }

  current(loopId: string): number {
    return this.iteration.get(loopId) ?? 0;
  }

  /** The id a receipt of this step is stored under now. */
  storedId(stepId: string): string {
    const loop = this.loopOfStep.get(stepId);
    return loop === undefined ? stepId : `${stepId}${ITERATION_SEPARATOR}${this.current(loop)}`;
  }

  /**
   * A committed iteration receipt `<loop>@<i>`: records its output and moves the loop to the
   * next iteration. Answers the body steps whose receipts then belong to a finished iteration
   * (none after the last one: they stay, settled, so nothing downstream is decided again).
   */
  finishIteration(loopId: string, i: number, output: unknown, base: LoopBase | undefined): string[] {
    const results = this.results.get(loopId) ?? [];
    results[i] = output;
    this.results.set(loopId, results);
    this.iteration.set(loopId, i + 1);
    if (base && i + 1 >= base.iterations) return [];
    return [...(this.bodies.get(loopId) ?? [])];
  }

  /** A loop step's own receipt that took no body target (an empty list) is done at once. */
  markEmptyDone(receipts: ReceiptRow[]): void {
    for (const r of receipts) {
      const body = this.bodies.get(r.step_id);
      if (body && r.status === 'completed' && !(r.taken ?? []).some((t) => body.has(t))) r.directive = { ...(r.directive ?? {}), loop: LOOP_DONE };
    }
  }

  /**
   * The receipts that end an iteration, when every body step of a loop has settled in `view`:
   * `<loop>@<i>` and, after the last iteration, the loop's own receipt with the done branch
   * taken. `view` is updated as the commit will leave it (body cleared for the next iteration).
   */
  iterationEnds(view: Map<string, PlanReceipt & Partial<ReceiptRow>>, now: string): ReceiptRow[] {
    const out: ReceiptRow[] = [];
    for (const [loopId, body] of this.bodies) {
      const own = view.get(loopId) as ReceiptRow | undefined;
      if (!own || own.status !== 'completed' || own.directive?.loop === LOOP_DONE) continue;
      const base = own.output as LoopBase;
      const i = this.current(loopId);
      if (i >= base.iterations || ![...body].every((id) => view.has(id) && SETTLED.has(view.get(id)!.status))) continue;
      const back = [...body].filter((id) => view.get(id)!.taken?.includes(loopId));
      const output = back.length === 0 ? null : back.length === 1 ? (view.get(back[0]) as ReceiptRow).output ?? null : Object.fromEntries(back.map((id) => [id, (view.get(id) as ReceiptRow).output ?? null]));
      const iterationId = `${loopId}${ITERATION_SEPARATOR}${i}`;
      const receipt: ReceiptRow = { step_id: iterationId, status: 'completed', attempt: 1, input: null, output, error: null, taken: [], directive: null, uncertain: false, carried_from: null, started_at: now, finished_at: now, execute_ms: null };
      out.push(receipt);
      if (i + 1 < base.iterations) {
        for (const id of body) view.delete(id);
        continue;
      }
      const results = [...(this.results.get(loopId) ?? [])];
      results[i] = output;
      const step = this.steps.get(loopId)!;
      // collected: every iteration's result list as one list (an n8n Loop Over Items' done output)
      const final: ReceiptRow = { ...own, output: { ...base, results, collected: results.flat() }, taken: step.next.filter((n) => doneTargets(step).includes(n)), directive: { ...(own.directive ?? {}), loop: LOOP_DONE }, finished_at: now };
      out.push(final);
      view.set(loopId, final);
    }
    return out;
  }
}
