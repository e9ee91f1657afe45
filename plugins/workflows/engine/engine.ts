import type { ServiceBroker } from 'moleculer';
import type { JobQueue } from '../../../kernel/queue/types.ts';
import { entryStepOf, RunExecutor, type Journal, type RunOutcome } from './executor.ts';
import { RunPlan } from './plan.ts';
import { runStep } from './step-runner.ts';
import { DbJournal, DeferredJournal } from './journals.ts';
import type { LiveEvents } from './live-events.ts';
import type { NodeTypeRegistry } from './node-types.ts';
import type { StepOutcome } from './step-runner.ts';
import type { EngineProfile } from './profile.ts';
import type { ClaimedRun, CreatedRun, RunStore } from '../store/runs.ts';
import { isRunnable } from '../store/version-snapshots.ts';
import type { NewRun, ReceiptRow, RunEvent, RunnableRun, RunRow } from '../store/run-types.ts';
import type { Env } from '../service.ts';
import { WORKFLOWS_RUN_SETTLED_EVENT as RUN_SETTLED_EVENT } from '../../../kernel/nodes/durable.ts';

export const RUN_JOB = 'workflow.run';


/** Queue id of a run: the run id, or `<run id>:<n>` for the n-th re-enqueue by the sweeper or a timer. */
export function runIdOfJob(jobId: string): string {
  return jobId.split(':')[0];
}

/** The delayed job that resumes a run paused on a timer: one id per wake-up, so re-arming it is idempotent. */
export function timerJob(runId: string, resumeAt: string): { name: string; id: string; delayMs: number } {
  const at = Date.parse(resumeAt);
  return { name: RUN_JOB, id: `${runId}:t${at}`, delayMs: Math.max(0, at - Date.now()) };
}

/**
 * A lease holder's name: its node and its process presence key (kernel/db/presence.ts), which
 * the recovery at start reads back to tell a dead holder's runs from a live one's.
 */
export function leaseOwnerName(nodeID: string, presenceKey: number): string {
  return `${nodeID}#${presenceKey}`;
}

export type Respond = NonNullable<StepOutcome['respond']>;

/** a folded entry step never has an uncertain effect (see foldedEntry) */
async function refuseInFlight(): Promise<boolean> {
  return false;
}

/** a folded entry step's start is announced with its receipt */
function ignoreStart(): void {}

/** `InlineRun.detach` of a run committing to `journal` */
function detacherOf(journal: Journal): () => Promise<void> {
  return async () => {
    if (journal instanceof DeferredJournal) await journal.promote();
  };
}

export interface InlineRun {
  run_id: string;
  /** settles with the run's outcome (or when the run goes on in the background) */
  finished: Promise<RunOutcome>;
  /** settles as soon as a respond step's receipt commits */
  responded: Promise<Respond>;
  /** the inline bound passed: keep the run going in the background (persists it first in errors-only mode) */
  detach(): Promise<void>;
}

/** Starts runs (queued, or inline for webhooks) and executes claimed runs from their receipts. */
export class Engine {
  /** this process's identity as a lease holder, known once its presence is taken (holdAs) */
  private ownerName?: string;
  /** set by a benchmark to see where the time goes */
  profile?: EngineProfile;

  /** the executors driving runs in this process, by run id (durable nodes reach theirs through workflows.checkpoint) */
  private readonly active = new Map<string, RunExecutor>();

  /** queue entries being executed here, by run id (from before the claim, when a run is not in `active` yet) */
  private readonly executing = new Map<string, number>();

  /** lifecycleBlock, bound once for every executor */
  private readonly lifecycle: (run: RunRow) => Promise<string | undefined>;

  constructor(
    private readonly deps: { broker: ServiceBroker; store: RunStore; nodeTypes: NodeTypeRegistry; live: LiveEvents; queue: JobQueue; env: Env },
  ) {
    this.lifecycle = this.lifecycleBlock.bind(this);
  }

  /** Names this engine's leases after the process presence it holds (the service's start does it, before any run). */
  holdAs(presenceKey: number): void {
    this.ownerName = leaseOwnerName(this.deps.broker.nodeID, presenceKey);
  }

  get owner(): string {
    if (!this.ownerName) throw new Error('the workflow engine holds no lease name before its service started');
    return this.ownerName;
  }

  get queue(): JobQueue {
    return this.deps.queue;
  }

  private get lease(): number {
    return this.deps.env.WORKFLOW_LEASE_SECONDS;
  }

  private publisher(run: { id: string; entity_id: string }) {
    return (events: Parameters<LiveEvents['publish']>[2]) => this.deps.live.publish(run.id, run.entity_id, events);
  }

  /** The runs driven in this process now: the ones whose leases it renews. */
  activeRunIds(): string[] {
    return [...this.active.keys()];
  }

  /** The executor driving `runId` in this process, if any. */
  activeRun(runId: string): RunExecutor | undefined {
    return this.active.get(runId);
  }

  /** Drives a run to its next stop, reachable meanwhile through activeRun. */
  private async drive(executor: RunExecutor): Promise<RunOutcome> {
    this.active.set(executor.runId, executor);
    try {
      return await executor.drive();
    } finally {
      if (this.active.get(executor.runId) === executor) this.active.delete(executor.runId);
    }
  }

  private executor(run: RunnableRun, journal: Journal, existing = [] as Awaited<ReturnType<RunStore['receipts']>>, onRespond?: (r: Respond) => void): RunExecutor {
    return new RunExecutor(run, existing, {
      broker: this.deps.broker,
      nodeTypes: this.deps.nodeTypes,
      journal,
      inlineWaitSeconds: this.deps.env.WORKFLOW_INLINE_WAIT_SECONDS,
      publish: this.publisher(run),
      onRespond,
      lifecycle: this.lifecycle,
      profile: this.profile,
    });
  }

  /** Why a run may not act now: its workspace is gone, archived or paused (undefined: it may). */
  private async lifecycleBlock(run: RunRow): Promise<string | undefined> {
    if (!run.workspace_id) return undefined;
    try {
      const ws = (await this.deps.broker.call('workspaces.resolve', { workspace_id: run.workspace_id }, { meta: { user: { id: run.owner_id, entity_id: run.entity_id, role: 'member' } } })) as { status?: string; archived_at?: string | null };
      if (ws.archived_at) return 'its workspace is archived';
      if (ws.status === 'paused') return 'its workspace is paused';
      return undefined;
    } catch (err) {
      return (err as { code?: number }).code === 404 ? 'its workspace no longer exists' : `its workspace could not be checked (${(err as Error).message})`;
    }
  }

  /** Commits the run row, then (only then) puts its id on the work queue. */
  async enqueueRun(run: NewRun, extra: Partial<Parameters<RunStore['create']>[1]> = {}): Promise<CreatedRun> {
    // a pending run waits in the queue: give it a long grace before the sweeper treats it as lost
    const row = await this.deps.store.create(run, { status: 'pending', leaseOwner: null, leaseSeconds: this.lease * 10, events: [{ type: 'run.created', data: { status: 'pending' } }], ...extra });
    await this.deps.queue.enqueue('work', { name: RUN_JOB, id: row.id });
    this.deps.live.publish(row.id, row.entity_id, [{ id: row.seq, type: 'run.created', data: { status: 'pending' } }]);
    return row;
  }

  /** Worker side: take the run and drive it; a run held elsewhere or already finished is left alone. */
  async execute(runId: string): Promise<RunOutcome | undefined> {
    const drivenHere = this.executing.has(runId) || this.active.has(runId);
    this.executing.set(runId, (this.executing.get(runId) ?? 0) + 1);
    try {
      const t0 = performance.now();
      const claimed = await this.deps.store.claim(runId, this.owner, this.lease, drivenHere);
      this.profile?.add('claim', performance.now() - t0);
      if (!claimed) return undefined;
      return await this.driveClaimed(claimed);
    } catch (err) {
      // not a step failure (those are receipts) but the database or the process: let the run go
      // at once, for a retry (engine/worker.ts) or the sweep, unless another drive here holds it
      if (!drivenHere && !this.active.has(runId)) await this.deps.store.release(runId, this.owner).catch(() => undefined);
      throw err;
    } finally {
      const left = (this.executing.get(runId) ?? 1) - 1;
      if (left > 0) this.executing.set(runId, left);
      else this.executing.delete(runId);
    }
  }

  private async driveClaimed(claimed: ClaimedRun): Promise<RunOutcome> {
    const runId = claimed.id;
    if (!isRunnable(claimed)) return this.failWithoutSnapshot(claimed);
    if (!claimed.announced) this.deps.live.publish(claimed.id, claimed.entity_id, [{ id: claimed.seq, type: claimed.old_status === 'pending' ? 'run.started' : 'run.resumed', data: { status: 'running' } }]);
    const t1 = performance.now();
    // a run taken from the queue for the first time has no receipts, unless a retry carried some
    const fresh = claimed.old_status === 'pending' && claimed.retry_of === null;
    const receipts = fresh ? [] : await this.deps.store.receipts(runId);
    if (this.profile) {
      this.profile.add('load', performance.now() - t1);
      this.profile.counts.runs += 1;
    }
    const outcome = await this.drive(this.executor(claimed, new DbJournal(this.deps.store, claimed, this.owner), receipts));
    await this.afterOutcome(claimed, outcome);
    this.announceSettled(claimed, outcome);
    return outcome;
  }

  /** A run whose definition version is gone (versions are kept, so only by hand) cannot go on: it fails. */
  private async failWithoutSnapshot(run: RunRow): Promise<RunOutcome> {
    const error = { message: `the run's definition version ${run.workflow_version} no longer exists`, code: 'SNAPSHOT_MISSING' };
    const seq = await new DbJournal(this.deps.store, run, this.owner).commit({ receipts: [], events: [{ type: 'run.finished', data: { status: 'failed', error } }], finish: { status: 'failed', error } });
    if (seq === undefined) return { status: 'lost' };
    this.deps.live.publish(run.id, run.entity_id, [{ id: seq, type: 'run.finished', data: { status: 'failed', error } }]);
    return { status: 'failed', error };
  }

  /**
   * Internal runs (the agent runtime's) and scheduled runs (the scheduler's job runs follow
   * them) announce where each drive left them, after the commit: RUN_SETTLED_EVENT, emitted
   * (one listener instance per service gets it). Other workflow runs are followed through
   * their event streams instead.
   */
  private announceSettled(run: RunRow, outcome: RunOutcome): void {
    if ((run.trigger_type !== 'agent' && run.trigger_type !== 'schedule') || outcome.status === 'lost') return;
    const payload = { entity_id: run.entity_id, run_id: run.id, owner_id: run.owner_id, workspace_id: run.workspace_id, trigger_type: run.trigger_type, trigger: run.trigger, status: outcome.status, output: outcome.output ?? null, error: outcome.error ?? null, pause: outcome.pause ?? null };
    void Promise.resolve(this.deps.broker.emit(RUN_SETTLED_EVENT, payload)).catch(() => undefined);
  }

  /** A long timer wait resumes from a delayed job (the sweeper also finds it when that job is lost). */
  private async afterOutcome(run: { id: string }, outcome: RunOutcome): Promise<void> {
    if (outcome.status === 'paused' && outcome.pause?.kind === 'timer' && outcome.pause.resume_at) {
      await this.deps.queue.enqueue('work', timerJob(run.id, outcome.pause.resume_at));
    }
  }

  /**
   * The entry step of an inline run, executed before the run row exists so its receipt commits
   * with the row (one statement fewer per webhook call). Only a plain pass-through qualifies: an
   * entry step that fails, pauses, finishes, responds or has an uncertain effect runs as usual.
   */
  private async foldedEntry(draft: RunnableRun): Promise<ReceiptRow | undefined> {
    const step = draft.snapshot.steps.find((s) => s.id === entryStepOf(draft, this.deps.nodeTypes));
    if (!step) return undefined;
    const outcome = await runStep(
      // functions declared once, not closures per run: under tsx (keepNames) each named closure costs an Object.defineProperty
      { broker: this.deps.broker, nodeTypes: this.deps.nodeTypes, inlineWaitSeconds: 0, markInFlight: refuseInFlight, started: ignoreStart, profile: this.profile },
      draft,
      step,
      draft.trigger ?? null,
      {},
      { outputs: new Map(), stepIds: RunPlan.of(draft.snapshot.steps, step.id).stepIds, variables: draft.variables ?? {}, trigger: draft.trigger },
    );
    if (!outcome || outcome.pause || outcome.finish || outcome.respond || outcome.receipt.status !== 'completed') return undefined;
    // its input is the run's trigger, stored on the run row already
    return { ...outcome.receipt, input: null };
  }

  /**
   * Creates a run already held by this process and drives it here at once, never through the
   * queue: a sub-workflow's child, whose parent step waits for it and so must not wait for a
   * free queue slot. Durable like any run: if this process dies, recovery takes it over.
   */
  async startHere(run: NewRun): Promise<CreatedRun> {
    const events: RunEvent[] = [{ type: 'run.created', data: { status: 'running' } }, { type: 'run.started', data: { status: 'running' } }];
    const created = await this.deps.store.create(run, { status: 'running', leaseOwner: this.owner, leaseSeconds: this.lease, events });
    const row = { ...run, status: 'running', seq: created.seq, output: null, error: null, pause: null, retry_of: null, root_run_id: run.id, retry_from_step: null, invalidated: null, lineage_attempt: 1, lease_owner: this.owner, lease_expires_at: null, recoveries: 0, inline: false, created_at: new Date(), started_at: new Date(), finished_at: null } as RunnableRun;
    this.deps.live.publish(row.id, row.entity_id, events.map((e, i) => ({ id: created.seq - events.length + 1 + i, ...e })));
    void this.drive(this.executor(row, new DbJournal(this.deps.store, row, this.owner)))
      .then(async (outcome) => {
        await this.afterOutcome(row, outcome);
        this.announceSettled(row, outcome);
      })
      .catch(() => undefined);
    return created;
  }

  /**
   * Runs a webhook's workflow in this process, durably unless persistence is errors-only:
   * the row commits first (with this process's lease), and a sweeper on a work node takes the
   * run over if this process dies.
   */
  async startInline(run: NewRun): Promise<InlineRun> {
    let respondNow!: (r: Respond) => void;
    const responded = new Promise<Respond>((resolve) => (respondNow = resolve));
    const deferred = this.deps.env.WORKFLOW_RUN_PERSISTENCE === 'errors';
    const draft = { ...run, status: 'running', seq: 0, output: null, error: null, pause: null, retry_of: null, root_run_id: run.id, retry_from_step: null, invalidated: null, lineage_attempt: 1, lease_owner: this.owner, lease_expires_at: null, recoveries: 0, inline: true, created_at: new Date(), started_at: new Date(), finished_at: null } as RunnableRun;
    const entry = await this.foldedEntry(draft);
    const receipts = entry ? [entry] : [];
    const events: RunEvent[] = [{ type: 'run.created', data: { status: 'running' } }, { type: 'run.started', data: { status: 'running' } }];
    if (entry) events.push({ type: 'step.started', data: { step_id: entry.step_id, started_at: entry.started_at } }, { type: 'step.finished', data: { step_id: entry.step_id, status: entry.status, finished_at: entry.finished_at } });
    let journal: Journal;
    let row: RunnableRun;
    if (deferred) {
      journal = new DeferredJournal(this.deps.store, run, this.owner, this.lease);
      row = { ...draft, seq: events.length };
      await journal.commit({ receipts, events });
    } else {
      const created = await this.deps.store.create({ ...run, inline: true }, { status: 'running', leaseOwner: this.owner, leaseSeconds: this.lease, events, receipts });
      row = { ...draft, seq: created.seq };
      journal = new DbJournal(this.deps.store, row, this.owner);
    }
    const finished = this.drive(this.executor(row, journal, receipts, (r) => respondNow(r)))
      .then(async (outcome) => {
        await this.afterOutcome(row, outcome);
        return outcome;
      });
    return {
      run_id: row.id,
      finished,
      responded,
      detach: detacherOf(journal),
    };
  }
}
