import type { ServiceBroker } from 'moleculer';
import { RunPlan, type PlanReceipt } from './plan.ts';
import { runStep, type StepOutcome } from './step-runner.ts';
import type { NodeTypeRegistry } from './node-types.ts';
import type { TemplateScope } from './templates.ts';
import type { LiveEvent } from './live-events.ts';
import type { EngineProfile } from './profile.ts';
import { nowIso } from './clock.ts';
import { announceChatRunStopped } from './chat-run.ts';
import { EACH_KEY, elementReceipts, runEach, type EachDeps } from './each.ts';
import { routedOutput } from './item-routes.ts';
import { iterationOf, iterationView, logicalStepId, LOOP_DONE, loopBodiesOf, LoopState, type LoopBase } from './loops.ts';
import { CHECKPOINT_SEPARATOR, type Checkpoint, type CheckpointParams, type DurableAnswer } from '../../../kernel/nodes/durable.ts';
import { checkpointOf, checkpointRow, finalOutputOf, isCheckpointId, receiptEvents, skipReceipt, storedReceipts } from './receipts.ts';
import type { Approval, Commit, PauseInfo, ReceiptRow, RunEvent, RunnableRun, RunRow, RunStatus, SavedInvocation } from '../store/run-types.ts';

/** Where commits go: the database (one statement each), or memory first (errors-only persistence). */
export interface Journal {
  /** the new seq, or undefined when the run is no longer this executor's (cancelled, taken over) */
  commit(c: Commit): Promise<number | undefined>;
}

export interface ExecutorDeps {
  broker: ServiceBroker;
  nodeTypes: NodeTypeRegistry;
  journal: Journal;
  inlineWaitSeconds: number;
  publish(events: LiveEvent[]): void;
  onRespond?(response: NonNullable<StepOutcome['respond']>): void;
  /** why the run may not act now (its workspace gone, archived or paused), checked before an approved invocation repeats */
  lifecycle?(run: RunRow): Promise<string | undefined>;
  profile?: EngineProfile;
}

type CommitOptions = { finishFailed?: boolean; finish?: StepOutcome['finish']; markerOnly?: boolean; events?: RunEvent[] };

export interface RunOutcome {
  status: RunStatus | 'lost';
  output?: unknown;
  error?: unknown;
  pause?: PauseInfo | null;
}

export function entryStepOf(run: RunnableRun, nodeTypes: NodeTypeRegistry): string {
  const entry = run.snapshot.steps.find((s) => nodeTypes.get(s.type)?.description.entry) ?? run.snapshot.steps[0];
  return entry.id;
}

/**
 * Drives one run from its committed receipts to the next stop (finished, paused, or lost).
 * Ready steps start at once and run concurrently; each receipt commits (with the skips it
 * decides and, when it is the last one, the run's final status) before any step depending on
 * it starts. Commits go one at a time, so each sees every earlier one.
 */
export class RunExecutor {
  private readonly plan: RunPlan;
  /** the run's loops (undefined when it has none: the common case pays nothing) */
  private readonly loops?: LoopState;
  private readonly receipts = new Map<string, ReceiptRow>();
  /** durable nodes' checkpoints by their full receipt id, in commit order */
  private readonly checkpoints = new Map<string, ReceiptRow>();
  /** why in-flight durable steps should stop early (cancelled, interrupted), once asked */
  private stopReason?: string;
  private readonly outputs = new Map<string, unknown>();
  private readonly inflight = new Map<string, Promise<void>>();
  private commitChain: Promise<unknown> = Promise.resolve();
  /** commits asked for and not yet settled (they run one at a time, in order) */
  private committing = 0;
  private failure?: { step_id: string; message: string; code?: string };
  private outcome?: RunOutcome;

  /** what every step of this run is run with */
  private readonly stepDeps: EachDeps;

  constructor(private readonly run: RunnableRun, existing: ReceiptRow[], private readonly deps: ExecutorDeps) {
    const bodies = loopBodiesOf(run.snapshot.steps, (s) => Boolean(deps.nodeTypes.get(s.type)?.description.loop));
    this.plan = RunPlan.of(run.snapshot.steps, entryStepOf(run, deps.nodeTypes), bodies);
    if (bodies.size) this.loops = new LoopState(this.plan.steps, bodies);
    for (const r of existing) this.remember(r);
    this.stepDeps = {
      broker: deps.broker,
      nodeTypes: deps.nodeTypes,
      inlineWaitSeconds: deps.inlineWaitSeconds,
      profile: deps.profile,
      // bound methods, not arrow functions: under tsx (keepNames) each named closure costs an Object.defineProperty
      markInFlight: this.commitMarker.bind(this),
      started: this.announceStart.bind(this),
      checkpointsOf: this.checkpointsOf.bind(this),
      elements: this.elementsOf.bind(this),
      commitElement: this.commitMarker.bind(this),
    };
    this.originsOf = this.originsOf.bind(this);
  }

  private commitMarker(marker: ReceiptRow): Promise<boolean> {
    return this.commit([marker], { markerOnly: true });
  }

  private announceStart(stepId: string, type: string): void {
    this.deps.publish([{ type: 'step.started', data: { step_id: stepId, type } }]);
  }

  private checkpointsOf(stepId: string): Checkpoint[] {
    const prefix = stepId + CHECKPOINT_SEPARATOR;
    return [...this.checkpoints.values()].filter((r) => r.step_id.startsWith(prefix)).map(checkpointOf);
  }

  private elementsOf(storedId: string): Map<number, ReceiptRow> {
    return elementReceipts(this.checkpoints, storedId);
  }

  private originsOf(stepId: string): unknown {
    return this.receipts.get(stepId)?.directive?.origins;
  }

  /** The run this executor drives. */
  get runId(): string {
    return this.run.id;
  }

  /**
   * Commits a durable node's checkpoint (a receipt `<step>:<key>`) with its events, in turn with
   * every other commit of the run; `stop` when the run was lost or asked to stop.
   */
  async checkpoint(p: CheckpointParams): Promise<DurableAnswer> {
    if (!this.inflight.has(p.step_id)) return { stop: true, reason: `step '${p.step_id}' is not running` };
    const now = nowIso();
    const entries = [...(p.ahead ?? []), p];
    const rows = entries.map((e) => checkpointRow(p.step_id, e, this.checkpoints, now));
    const ok = await this.commit(rows, { markerOnly: true, events: entries.flatMap((e) => e.events ?? []) });
    if (!ok) return { stop: true, reason: 'the run is no longer held by this worker' };
    return { stop: this.stopReason !== undefined, reason: this.stopReason };
  }

  /** Live-only events of a durable step (no id, not stored); `stop` as for checkpoints. */
  liveEvents(events: RunEvent[]): DurableAnswer {
    if (!this.outcome) this.deps.publish(events);
    return { stop: this.outcome !== undefined || this.stopReason !== undefined, reason: this.stopReason ?? (this.outcome ? 'the run has ended' : undefined) };
  }

  /** Asks in-flight durable steps to stop at their next checkpoint (a cancel, a client gone). */
  interrupt(reason: string): void {
    this.stopReason ??= reason;
  }

  private remember(r: ReceiptRow): void {
    if (isCheckpointId(r.step_id)) {
      this.checkpoints.set(r.step_id, r);
      return;
    }
    if (this.loops && iterationOf(r.step_id) !== undefined) {
      this.rememberIteration(r);
      return;
    }
    this.receipts.set(r.step_id, r);
    if (r.status === 'completed' || r.status === 'reconciled' || r.status === 'skipped') this.outputs.set(r.step_id, r.output);
    if (this.loops?.bodies.has(r.step_id)) this.showLoop(r.step_id);
  }

  /** A loop step's output as templates and its body read it: the current iteration's element(s), or, once done, every result. */
  private showLoop(loopId: string): void {
    const own = this.receipts.get(loopId);
    if (own?.status !== 'completed' || own.directive?.loop === LOOP_DONE) return;
    const base = own.output as LoopBase;
    if (this.loops!.current(loopId) < base.iterations) this.outputs.set(loopId, iterationView(base, this.loops!.current(loopId)));
  }

  /** A receipt of one iteration: a loop's iteration receipt moves it on; a body step's counts for the current iteration only. */
  private rememberIteration(r: ReceiptRow): void {
    const id = logicalStepId(r.step_id);
    const i = iterationOf(r.step_id)!;
    const loops = this.loops!;
    if (loops.bodies.has(id)) {
      for (const cleared of loops.finishIteration(id, i, r.output, this.receipts.get(id)?.output as LoopBase | undefined)) {
        this.receipts.delete(cleared);
        this.outputs.delete(cleared);
      }
      this.showLoop(id);
      return;
    }
    const loop = loops.loopOf(id);
    if (loop === undefined || loops.current(loop) !== i) return;
    this.remember({ ...r, step_id: id });
  }

  private stored(receipts: ReceiptRow[]): ReceiptRow[] {
    return this.loops ? storedReceipts(this.loops, receipts) : receipts;
  }

  private scope(): TemplateScope {
    return { outputs: this.outputs, stepIds: this.plan.stepIds, variables: this.run.variables ?? {}, trigger: this.run.trigger, originsOf: this.originsOf };
  }

  private waiting(): ReceiptRow[] {
    return [...this.receipts.values()].filter((r) => r.status === 'waiting');
  }

  /** Skip receipts that become decidable once `view` is applied, cascading. */
  private cascadeSkips(view: Map<string, PlanReceipt>): ReceiptRow[] {
    const now = nowIso();
    return this.plan.cascadeSkips(view, new Set(this.inflight.keys())).map((id) => {
      const r = skipReceipt(id, now);
      view.set(id, r);
      return r;
    });
  }

  private typeOf(stepId: string): string {
    return this.plan.steps.get(this.loops ? logicalStepId(stepId) : stepId)?.type ?? '';
  }

  private events(receipts: ReceiptRow[]): RunEvent[] {
    return receiptEvents(receipts, (id) => this.typeOf(id), (id) => this.receipts.has(this.loops ? logicalStepId(id) : id));
  }

  /**
   * Commits receipts (plus the skips and final status they lead to), one commit at a time, in
   * the order asked for; with none under way it starts at once rather than a microtask later.
   */
  private commit(receipts: ReceiptRow[], opts: CommitOptions = {}): Promise<boolean> {
    this.committing++;
    let next: Promise<boolean>;
    if (this.committing === 1) next = this.commitInTurn(receipts, opts);
    else {
      const inTurn = () => this.commitInTurn(receipts, opts);
      next = this.commitChain.then(inTurn, inTurn);
    }
    this.commitChain = next;
    return next;
  }

  private async commitInTurn(receipts: ReceiptRow[], opts: CommitOptions): Promise<boolean> {
    try {
      return await this.commitNow(receipts, opts);
    } finally {
      this.committing--;
    }
  }

  // a method, not a closure made per commit (see stepDeps)
  private async commitNow(receipts: ReceiptRow[], opts: CommitOptions): Promise<boolean> {
    if (this.outcome) return false;
    this.loops?.markEmptyDone(receipts);
    const view = new Map<string, PlanReceipt>(this.receipts);
    for (const r of receipts) view.set(r.step_id, r);
    const skips = opts.markerOnly || !this.plan.mayDecideSkips(receipts) ? [] : this.cascadeSkips(view);
    let all = [...receipts, ...skips];
    if (this.loops) {
      const ends = opts.markerOnly ? [] : this.loops.iterationEnds(view as Map<string, ReceiptRow>, nowIso());
      all = this.stored(all);
      if (ends.length) all.push(...ends, ...this.stored(this.cascadeSkips(view)));
    }
    const events = this.events(all);
    if (opts.events) events.push(...opts.events);
    let finish: Commit['finish'];
    const others = [...this.inflight.keys()].filter((id) => !receipts.some((r) => r.step_id === id));
    if (opts.finish) finish = opts.finish.status === 'failed' ? { status: 'failed', error: { message: opts.finish.error ?? 'stopped', step_id: receipts[0]?.step_id } } : { status: 'completed', output: opts.finish.output ?? null };
    else if (opts.finishFailed || (this.failure && others.length === 0)) finish = { status: 'failed', error: this.failure };
    else if (!opts.markerOnly && others.length === 0 && !this.failure && this.plan.ready(view, new Set()).every((d) => d.decision !== 'run')) {
      const waits = [...view.entries()].filter(([, r]) => r.status === 'waiting').map(([id]) => id);
      if (waits.length) {
        const pause = (this.receipts.get(waits[0])?.directive?.pause ?? all.find((r) => (this.loops ? logicalStepId(r.step_id) : r.step_id) === waits[0])?.directive?.pause) as PauseInfo;
        finish = { status: 'paused', pause, resumeAt: pause.kind === 'timer' ? pause.resume_at : null };
      } else {
        for (const r of all) this.remember(r);
        finish = { status: 'completed', output: finalOutputOf(this.receipts.values()) };
      }
    }
    if (finish) events.push({ type: finish.status === 'paused' ? 'run.paused' : 'run.finished', data: { status: finish.status, error: finish.error ?? undefined, pause: finish.pause ?? undefined } });
    const t0 = this.deps.profile ? performance.now() : 0;
    const seq = await this.deps.journal.commit({ receipts: all, events, finish });
    this.deps.profile?.add('commit', performance.now() - t0);
    if (seq === undefined) {
      this.outcome = { status: 'lost' };
      return false;
    }
    for (const r of all) this.remember(r);
    this.deps.publish(events.map((e, i) => ({ id: seq - events.length + 1 + i, ...e })));
    if (finish) this.outcome = { status: finish.status, output: finish.output, error: finish.error, pause: finish.pause ?? null };
    if (finish && this.run.trigger_type === 'chat') announceChatRunStopped(this.deps.broker, this.run, finish);
    return true;
  }

  private inputsOf(stepId: string): { input: unknown; inputs: Record<string, unknown> } {
    if (stepId === this.plan.entryId) return { input: this.run.trigger ?? null, inputs: {} };
    const parents = this.plan.activeParents(stepId, this.receipts);
    const inputs = Object.fromEntries(parents.map((p) => [p, routedOutput(this.receipts.get(p)?.directive, stepId, this.outputs.get(p)) ?? null]));
    return { input: parents.length === 1 ? inputs[parents[0]] : inputs, inputs };
  }

  private start(stepId: string, approved?: { invocation: SavedInvocation; approval: Approval; attempt: number }): void {
    const step = this.plan.steps.get(stepId)!;
    const { input, inputs } = approved ? approved.invocation : this.inputsOf(stepId);
    const readyAt = this.deps.profile ? performance.now() : 0;
    const task = (async () => {
      const outcome = step.config?.[EACH_KEY] !== undefined && !approved
        ? await runEach(this.stepDeps, this.run, step, this.loops?.storedId(stepId) ?? stepId, input, inputs, this.scope())
        : await runStep(this.stepDeps, this.run, step, input, inputs, this.scope(), approved);
      if (!outcome) return;
      // a step's input is its active parents' outputs (the entry's: the run's trigger), all
      // committed already: it is not stored again (run-view.ts derives it for the trace)
      outcome.receipt.input = null;
      if (outcome.receipt.status === 'failed') this.failure ??= { step_id: stepId, message: String((outcome.receipt.error as { message?: string })?.message ?? 'failed'), code: (outcome.receipt.error as { code?: string })?.code };
      const ok = await this.commit([outcome.receipt], { finish: outcome.finish });
      if (this.deps.profile && outcome.receipt.execute_ms !== null) this.deps.profile.step(performance.now() - readyAt, outcome.receipt.execute_ms);
      if (ok && outcome.respond) this.deps.onRespond?.(outcome.respond);
    })()
      .catch((err) => {
        this.failure ??= { step_id: stepId, message: (err as Error).message ?? String(err), code: 'ENGINE_ERROR' };
      })
      .finally(() => this.inflight.delete(stepId));
    this.inflight.set(stepId, task);
  }

  /** Recovery: an in-flight marker left by a dead worker; a step with an uncertain effect is not repeated. */
  private async recover(): Promise<void> {
    const stale = [...this.receipts.values(), ...this.checkpoints.values()].filter((r) => r.status === 'running');
    if (stale.length === 0) return;
    const uncertain = stale.filter((r) => r.uncertain);
    for (const r of stale) {
      this.receipts.delete(r.step_id);
      if (!r.uncertain) this.checkpoints.delete(r.step_id);
    }
    if (uncertain.length === 0) return;
    const now = nowIso();
    const marked = uncertain.map((r) => ({ ...r, status: 'needs_reconciliation' as const, finished_at: now, error: { message: 'the step was in flight when its worker stopped; its external effect is uncertain: reconcile it (POST /runs/{run_id}/step) before retrying', code: 'UNCERTAIN_EFFECT' } }));
    this.failure = { step_id: marked[0].step_id, message: `step '${marked[0].step_id}' has an uncertain external effect and needs reconciliation`, code: 'UNCERTAIN_EFFECT' };
    await this.commit(marked, { finishFailed: true });
  }

  /** A paused timer that is due: its wait step completes now. */
  private async completeDueTimers(): Promise<void> {
    const now = Date.now();
    const due = this.waiting().filter((r) => {
      const p = r.directive?.pause as PauseInfo | undefined;
      return p?.kind === 'timer' && p.resume_at !== null && Date.parse(p.resume_at) <= now;
    });
    if (due.length === 0) return;
    const at = nowIso();
    const step = (id: string) => this.plan.steps.get(id)!;
    await this.commit(due.map((r) => ({ ...r, status: 'completed' as const, finished_at: at, output: { waited_until: (r.directive?.pause as PauseInfo).resume_at }, taken: step(r.step_id).next })));
  }

  /**
   * Runtime-approval waits the run owner approved: each repeats its saved invocation once (the
   * node sees the approval and checks its policy again), unless the run's workspace no longer
   * allows work, which fails the step instead.
   */
  private async repeatApproved(): Promise<void> {
    const approved = this.waiting().filter((r) => {
      const p = r.directive?.pause as PauseInfo | undefined;
      return (p?.kind === 'runtime_approval' || p?.kind === 'question') && p.approval !== undefined && p.invocation !== undefined;
    });
    for (const r of approved) {
      const pause = r.directive!.pause as PauseInfo;
      const blocked = await this.deps.lifecycle?.(this.run);
      if (blocked) {
        const error = { message: `the approved invocation was not repeated: ${blocked}`, code: 'LIFECYCLE_BLOCKED' };
        this.failure ??= { step_id: r.step_id, ...error };
        await this.commit([{ ...r, status: 'failed', finished_at: nowIso(), error }]);
        continue;
      }
      this.start(r.step_id, { invocation: pause.invocation!, approval: pause.approval!, attempt: r.attempt + 1 });
    }
  }

  async drive(): Promise<RunOutcome> {
    await this.recover();
    await this.completeDueTimers();
    await this.repeatApproved();
    while (!this.outcome) {
      if (!this.failure) {
        const ready = this.plan.ready(this.receipts, new Set(this.inflight.keys()));
        const skips = ready.filter((d) => d.decision === 'skip');
        if (skips.length && this.inflight.size === 0) {
          // decided by commits that raced each other: record them now
          await this.commit([]);
          continue;
        }
        for (const d of ready) if (d.decision === 'run') this.start(d.id);
      }
      if (this.inflight.size === 0) {
        await this.commitChain;
        if (!this.outcome) await this.commit([], { finishFailed: Boolean(this.failure) });
        break;
      }
      await Promise.race(this.inflight.values());
      await this.commitChain;
    }
    await Promise.allSettled(this.inflight.values());
    return this.outcome ?? { status: 'lost' };
  }
}
