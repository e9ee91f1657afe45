import type { StepDefinition } from '../definitions/validate.ts';

/**
 * Which steps of a run can start, from its committed receipts alone (pure: no I/O).
 *
 * An edge P -> C is active when P's receipt lists C in `taken` (a completed step takes all of
 * its `next`, or the branches it chose). A step is decided once every parent has settled:
 * it runs if at least one incoming edge is active (so a merge waits for every branch that
 * was taken, and a branch not taken does not hold it up), else it is skipped, and its own
 * edges are inactive. Steps no path reaches (a note on the side) never run.
 */
export type ReceiptStatus = 'running' | 'completed' | 'failed' | 'skipped' | 'waiting' | 'needs_reconciliation' | 'reconciled';

export interface PlanReceipt {
  status: ReceiptStatus;
  taken: string[] | null;
  /** a loop step's receipt says `loop: 'done'` once its last iteration ended (engine/loops.ts) */
  directive?: Record<string, unknown> | null;
}

export const SETTLED: ReadonlySet<ReceiptStatus> = new Set(['completed', 'skipped', 'reconciled']);

/** Plans by the steps array they were built from: a webhook's runs share their binding's cached snapshot. */
const PLANS = new WeakMap<StepDefinition[], RunPlan>();

export class RunPlan {
  /** The plan of these steps (immutable once a run has them), built once per steps array. */
  static of(steps: StepDefinition[], entryId: string, loopBodies?: ReadonlyMap<string, ReadonlySet<string>>): RunPlan {
    const known = PLANS.get(steps);
    if (known && known.entryId === entryId) return known;
    const plan = new RunPlan(steps, entryId, loopBodies);
    PLANS.set(steps, plan);
    return plan;
  }

  readonly steps: ReadonlyMap<string, StepDefinition>;
  readonly parents: ReadonlyMap<string, string[]>;
  readonly stepIds: ReadonlySet<string>;
  /** loop steps' bodies; a loop's other children wait until it is done */
  private readonly loopBodies?: ReadonlyMap<string, ReadonlySet<string>>;

  /** `loopBodies`: each loop step's body (engine/loops.ts); the edges back from it do not hold the loop step's first start */
  constructor(steps: StepDefinition[], readonly entryId: string, loopBodies?: ReadonlyMap<string, ReadonlySet<string>>) {
    this.steps = new Map(steps.map((s) => [s.id, s]));
    this.stepIds = new Set(this.steps.keys());
    const parents = new Map<string, string[]>(steps.map((s) => [s.id, []]));
    for (const s of steps) for (const n of s.next) parents.get(n)?.push(s.id);
    for (const [loop, body] of loopBodies ?? []) parents.set(loop, (parents.get(loop) ?? []).filter((p) => !body.has(p)));
    this.parents = parents;
    if (loopBodies?.size) this.loopBodies = loopBodies;
  }

  /** 'run', 'skip', or 'wait' (some parent has not settled) for a step with no receipt yet. */
  decide(stepId: string, receipts: ReadonlyMap<string, PlanReceipt>): 'run' | 'skip' | 'wait' {
    if (stepId === this.entryId) return 'run';
    const parents = this.parents.get(stepId) ?? [];
    if (parents.length === 0) return 'wait';
    let active = false;
    for (const p of parents) {
      const r = receipts.get(p);
      if (!r || !SETTLED.has(r.status)) return 'wait';
      if (this.loopBodies?.has(p) && r.status === 'completed' && r.directive?.loop !== 'done' && !this.loopBodies.get(p)!.has(stepId)) return 'wait';
      if (r.taken?.includes(stepId)) active = true;
    }
    return active ? 'run' : 'skip';
  }

  /** Steps without a receipt that can be decided now, with the decision. */
  ready(receipts: ReadonlyMap<string, PlanReceipt>, exclude: ReadonlySet<string> = new Set()): { id: string; decision: 'run' | 'skip' }[] {
    const out: { id: string; decision: 'run' | 'skip' }[] = [];
    for (const id of this.steps.keys()) {
      if (receipts.has(id) || exclude.has(id)) continue;
      const decision = this.decide(id, receipts);
      if (decision !== 'wait') out.push({ id, decision });
    }
    return out;
  }

  /**
   * Whether committing these receipts can let a step be skipped: only a settled step that did
   * not take every one of its `next` leaves an inactive edge (an empty commit records skips
   * decided by earlier commits that raced each other).
   */
  mayDecideSkips(receipts: readonly (PlanReceipt & { step_id: string })[]): boolean {
    if (receipts.length === 0) return true;
    return receipts.some((r) => SETTLED.has(r.status) && (r.taken ?? []).length < (this.steps.get(r.step_id)?.next.length ?? 0));
  }

  /** Steps without a receipt that are skipped once `receipts` apply, cascading (a skip can decide the next). */
  cascadeSkips(receipts: ReadonlyMap<string, PlanReceipt>, exclude: ReadonlySet<string>): string[] {
    const view = new Map(receipts);
    const skipped: string[] = [];
    for (;;) {
      const next = this.ready(view, exclude).filter((d) => d.decision === 'skip');
      if (next.length === 0) return skipped;
      for (const { id } of next) {
        skipped.push(id);
        view.set(id, { status: 'skipped', taken: [] });
      }
    }
  }

  /** The active parents of a step, in definition order. */
  activeParents(stepId: string, receipts: ReadonlyMap<string, PlanReceipt>): string[] {
    return (this.parents.get(stepId) ?? []).filter((p) => receipts.get(p)?.taken?.includes(stepId));
  }

  /** A step and every step reachable from it. */
  downstream(stepId: string): Set<string> {
    const seen = new Set<string>();
    const walk = (id: string): void => {
      if (seen.has(id)) return;
      seen.add(id);
      for (const n of this.steps.get(id)?.next ?? []) walk(n);
    };
    walk(stepId);
    return seen;
  }
}
