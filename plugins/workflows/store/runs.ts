import { json, type Sql } from './sql.ts';
import { GroupCommit, type FlushStats } from '../../../kernel/db/group-commit.ts';
import { OUTPUT_IS_TRIGGER, type Commit, type NewRun, type ReceiptRow, type RunEvent, type RunRow } from './run-types.ts';
import type { VersionSnapshots } from './version-snapshots.ts';

/**
 * New runs (one, or several at once: group commit), each with its first receipts (written by
 * workflow_put_receipts, migrations/005, once for the whole statement) and events, in one statement. Only
 * after it commits may a run's id go on the queue. Fields are read with `->`/`->>`: a
 * jsonb_to_recordset would turn each jsonb field back into text and parse it again.
 */
const CREATE_SQL = `
WITH c AS (
  SELECT (v->>'run_id')::uuid AS id, (v->>'entity_id')::varchar AS entity_id, (v->>'workflow_id')::uuid AS workflow_id, (v->>'workflow_version')::int AS workflow_version,
    (v->>'binding_id')::uuid AS binding_id, (v->>'workspace_id')::uuid AS workspace_id, (v->>'owner_id')::varchar AS owner_id, (v->>'trigger_type')::varchar AS trigger_type,
    (v->>'status')::varchar AS status, NULLIF(v->'snapshot', 'null') AS snapshot, NULLIF(v->'trigger', 'null') AS trigger, NULLIF(v->'variables', 'null') AS variables,
    (v->>'retry_of')::uuid AS retry_of, (v->>'root_run_id')::uuid AS root_run_id, (v->>'retry_from_step')::varchar AS retry_from_step, NULLIF(v->'invalidated', 'null') AS invalidated,
    (v->>'lineage_attempt')::int AS lineage_attempt, (v->>'inline')::boolean AS inline, (v->>'lease_owner')::varchar AS lease_owner, (v->>'lease_seconds')::float8 AS lease_seconds,
    v->'events' AS events, (v->>'n')::int AS n
  FROM jsonb_array_elements($1::jsonb) AS x(v)
), w AS (
  INSERT INTO workflow_runs (id, entity_id, workflow_id, workflow_version, binding_id, workspace_id, owner_id, trigger_type, status, snapshot, trigger, variables,
    retry_of, root_run_id, retry_from_step, invalidated, lineage_attempt, inline, lease_owner, lease_expires_at, started_at, seq)
  SELECT id, entity_id, workflow_id, workflow_version, binding_id, workspace_id, owner_id, trigger_type, status, snapshot, COALESCE(trigger, 'null'::jsonb), COALESCE(variables, '{}'::jsonb),
    retry_of, root_run_id, retry_from_step, COALESCE(invalidated, 'null'::jsonb), lineage_attempt, inline, lease_owner,
    now() + make_interval(secs => lease_seconds), CASE WHEN status = 'running' THEN now() END, n
  FROM c
  RETURNING id, entity_id, status, seq
), e AS (
  INSERT INTO workflow_run_events (run_id, seq, type, data)
  SELECT c.id, (x.value->>'rel')::int, x.value->>'type', x.value->'data' FROM c JOIN w ON w.id = c.id, jsonb_array_elements(c.events) AS x(value)
), p AS MATERIALIZED (SELECT workflow_put_receipts($1::jsonb, NULL))
SELECT w.id, w.entity_id, w.status, w.seq FROM w, p`;

const CLAIM_SQL = `
WITH o AS (
  SELECT id, status AS old_status, lease_owner AS old_owner,
    -- handed back to the queue by an approval or an event (run-control.ts), which recorded run.resumed itself
    (status = 'running' AND lease_owner IS NULL AND EXISTS (
      SELECT 1 FROM workflow_run_events v WHERE v.run_id = workflow_runs.id AND v.seq = workflow_runs.seq AND v.type = 'run.resumed')) AS announced
  FROM workflow_runs WHERE id = $1 FOR UPDATE),
c AS (
  UPDATE workflow_runs r SET status = 'running', lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3),
    started_at = COALESCE(r.started_at, now()), seq = r.seq + CASE WHEN o.announced THEN 0 ELSE 1 END, updated_at = now()
  FROM o WHERE r.id = o.id AND (
    (r.status IN ('pending', 'running') AND (r.lease_owner IS NULL OR (r.lease_owner = $2 AND NOT $4::boolean) OR r.lease_expires_at < now()))
    OR (r.status = 'paused' AND r.pause->>'kind' = 'timer' AND (r.pause->>'resume_at')::timestamptz <= now()))
  RETURNING r.*, o.old_status, o.old_owner, o.announced
), e AS (
  INSERT INTO workflow_run_events (run_id, seq, type, data)
  SELECT id, seq, CASE WHEN old_status = 'pending' THEN 'run.started' ELSE 'run.resumed' END,
    jsonb_build_object('status', 'running', 'previous_status', old_status, 'recovered_from', old_owner) FROM c WHERE NOT c.announced
)
SELECT * FROM c`;

/**
 * Events as stored: the events of one commit are ONE row, of type `frames` holding them in
 * order, at the seq of the last (frame i of n is at seq - n + 1 + i); a commit with a single
 * event stores it as a row of its own type. A row per commit rather than per event: the rows
 * are most of what a step commit writes. RunQueries.eventsAfter unpacks them (and rows of type
 * `step`, a started and finished frame, written by earlier versions).
 * `rel` is the position of the row's last frame within the commit (1-based).
 */
export function packEvents(events: RunEvent[]): { type: string; data: Record<string, unknown>; rel: number }[] {
  if (events.length === 0) return [];
  if (events.length === 1) return [{ type: events[0].type, data: events[0].data, rel: 1 }];
  return [{ type: 'frames', data: { frames: events.map((e) => ({ type: e.type, data: e.data })) }, rel: events.length }];
}

/**
 * A run's receipts in order, each output as the engine saw it: a receipt marked OUTPUT_IS_TRIGGER
 * stores none and is given its run's trigger.
 */
export const RECEIPTS_SQL = `
SELECT s.run_id, s.step_id, s.entity_id, s.status, s.attempt, s.input,
  CASE WHEN s.directive->>'output' = '${OUTPUT_IS_TRIGGER}' THEN w.trigger ELSE s.output END AS output,
  s.error, s.taken, s.directive, s.uncertain, s.carried_from, s.started_at, s.finished_at, s.execute_ms, s.ord
FROM workflow_step_receipts s JOIN workflow_runs w ON w.id = s.run_id
WHERE s.run_id = $1 ORDER BY s.ord`;

/** A holder's leases, renewed: one statement per holder and tick (index workflow_runs_lease_owner, migrations/006). */
export const RENEW_LEASES_SQL = "UPDATE workflow_runs SET lease_expires_at = now() + make_interval(secs => $2) WHERE lease_owner = $1 AND status = 'running' AND id = ANY($3::uuid[])";

/** Lets go of a run whose drive threw: the lease runs out now, so a retry (or the sweep) claims it. */
const RELEASE_SQL = "UPDATE workflow_runs SET lease_owner = NULL, lease_expires_at = now() WHERE id = $1 AND lease_owner = $2 AND status = 'running'";

/** Receipts as written: one whose output is its run's trigger carries no copy of it. */
function asStored(receipts: ReceiptRow[]): ReceiptRow[] {
  return receipts.map((r) => (r.directive?.output === OUTPUT_IS_TRIGGER && r.output !== null ? { ...r, output: null } : r));
}

/** `announced`: the run.resumed of this hand-over was recorded when the run was handed back (no new event, seq unchanged) */
export type ClaimedRun = RunRow & { old_status: string; old_owner: string | null; announced: boolean };
export type CreatedRun = Pick<RunRow, 'id' | 'entity_id' | 'status' | 'seq'>;

/** an error PostgreSQL answered for the statement (a SQLSTATE): its transaction was rolled back */
const refusedByDatabase = (err: unknown): boolean => typeof (err as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);

/** the two group commits of a process: new run rows, and the step commits of running runs */
export type CommitKind = 'run_create' | 'step_commit';

type CommitItem = { run: { id: string; entity_id: string }; owner: string; c: Commit };
type CreateOptions = { status: 'pending' | 'running'; leaseOwner: string | null; leaseSeconds: number; receipts?: ReceiptRow[]; events?: RunEvent[] };
type CreateItem = { run: NewRun; opts: CreateOptions };

/** Run rows, receipts and events: the engine's writes (each one statement) and the reads it needs. */
export class RunStore {
  /** step commits of concurrent runs, grouped under load (see GroupCommit) */
  private readonly commits: GroupCommit<CommitItem, number | undefined>;
  /** new run rows, grouped the same way */
  private readonly creates: GroupCommit<CreateItem, CreatedRun>;

  constructor(
    private readonly sql: Sql,
    private readonly versions: VersionSnapshots,
    opts: { commitSlots: number; onFlush?(kind: CommitKind, stats: FlushStats): void } = { commitSlots: 1 },
  ) {
    const onFlush = opts.onFlush;
    this.commits = new GroupCommit((items: CommitItem[]) => this.commitMany(items), {
      // workflow_commit_runs applies at most one record per run in a statement
      maxInFlight: opts.commitSlots, maxBatch: 64, rolledBack: refusedByDatabase, keyOf: (i) => i.run.id, onFlush: onFlush && ((s) => onFlush('step_commit', s)),
    });
    this.creates = new GroupCommit((items: CreateItem[]) => this.createMany(items), {
      maxInFlight: opts.commitSlots, maxBatch: 64, rolledBack: refusedByDatabase, onFlush: onFlush && ((s) => onFlush('run_create', s)),
    });
  }

  /**
   * Commits a new run (with any receipts carried from an earlier attempt, and its first events).
   * Only after this resolves may its id go on the queue.
   */
  create(run: NewRun, opts: CreateOptions): Promise<CreatedRun> {
    return this.creates.submit({ run, opts });
  }

  private async createMany(items: CreateItem[]): Promise<CreatedRun[]> {
    const records = items.map(({ run, opts }) => ({
      run_id: run.id, entity_id: run.entity_id, workflow_id: run.workflow_id, workflow_version: run.workflow_version, binding_id: run.binding_id, workspace_id: run.workspace_id,
      owner_id: run.owner_id, trigger_type: run.trigger_type, status: opts.status, snapshot: run.snapshot_by_version ? null : run.snapshot, trigger: run.trigger ?? null, variables: run.variables,
      retry_of: run.retry_of ?? null, root_run_id: run.root_run_id ?? run.id, retry_from_step: run.retry_from_step ?? null, invalidated: run.invalidated ?? null,
      lineage_attempt: run.lineage_attempt ?? 1, inline: run.inline ?? false, lease_owner: opts.leaseOwner, lease_seconds: opts.leaseSeconds,
      receipts: asStored(opts.receipts ?? []), events: packEvents(opts.events ?? []), n: (opts.events ?? []).length,
    }));
    const rows = await this.sql.rows<CreatedRun>(CREATE_SQL, [json(records)], 'wf_run_create');
    const byId = new Map(rows.map((r) => [r.id, r]));
    return items.map((i) => {
      const row = byId.get(i.run.id);
      if (!row) throw new Error(`run ${i.run.id} was not created`);
      return row;
    });
  }

  /**
   * Takes the run for this worker (with its snapshot), or undefined when another worker holds
   * it or it is not runnable. `drivenHere`: this process drives the run already, so a lease
   * naming this process is that drive's, not one to take again (two queue entries of one run,
   * say a hand-back's and the sweep's, would otherwise both drive it here).
   */
  async claim(runId: string, owner: string, leaseSeconds: number, drivenHere = false): Promise<ClaimedRun | undefined> {
    return this.versions.fill(await this.sql.one<ClaimedRun>(CLAIM_SQL, [runId, owner, leaseSeconds, drivenHere], 'wf_run_claim'));
  }

  /** Commits receipts and events (and a final status) while this worker still holds the run; the new seq, else undefined. */
  commit(run: { id: string; entity_id: string }, owner: string, c: Commit): Promise<number | undefined> {
    return this.commits.submit({ run, owner, c });
  }

  /** The commits as one call of workflow_commit_runs (migrations/005): a run no longer this worker's gets undefined. */
  private async commitMany(items: CommitItem[]): Promise<(number | undefined)[]> {
    const records = items.map(({ run, owner, c }) => ({
      run_id: run.id, owner, entity_id: run.entity_id, n: c.events.length, status: c.finish?.status ?? null, output: c.finish?.output ?? null, error: c.finish?.error ?? null,
      pause: c.finish?.pause ?? null, resume_at: c.finish?.resumeAt ?? null, receipts: asStored(c.receipts), events: packEvents(c.events),
    }));
    const rows = await this.sql.rows<{ committed_run: string; new_seq: number }>('SELECT committed_run, new_seq FROM workflow_commit_runs($1::jsonb)', [json(records)], 'wf_run_commit');
    // rows come in record order, without the records that were skipped. Matching by run id is
    // exact: every record of a batch carries this process's owner, so once a record of a run is
    // skipped (the run is no longer running, or no longer ours) so are its later ones
    let next = 0;
    return items.map((i) => (rows[next]?.committed_run === i.run.id ? rows[next++].new_seq : undefined));
  }

  async receipts(runId: string): Promise<ReceiptRow[]> {
    return this.sql.rows<ReceiptRow>(RECEIPTS_SQL, [runId], 'wf_receipts');
  }

  /**
   * Renews the leases of the runs this holder drives now (`runIds`), and only those: a run
   * whose drive threw is not renewed for ever under a live holder, its lease runs out.
   */
  async renewLeases(owner: string, leaseSeconds: number, runIds: string[]): Promise<number> {
    if (runIds.length === 0) return 0;
    return this.sql.exec(RENEW_LEASES_SQL, [owner, leaseSeconds, runIds]);
  }

  async release(runId: string, owner: string): Promise<void> {
    await this.sql.exec(RELEASE_SQL, [runId, owner]);
  }

  /**
   * Runs no worker holds: pending or running with an expired lease, and paused timers that are
   * due. Each is given a fresh short lease (so two sweepers do not both take it) and returned
   * with its recovery count, which makes a distinct queue id for the re-enqueue.
   */
  async sweep(leaseSeconds: number, limit = 500): Promise<{ id: string; recoveries: number; status: string }[]> {
    return this.sql.rows(
      `UPDATE workflow_runs SET recoveries = recoveries + 1, lease_owner = NULL, lease_expires_at = now() + make_interval(secs => $1)
       WHERE id IN (
         SELECT id FROM workflow_runs
         WHERE (status IN ('pending', 'running') AND lease_expires_at < now())
            OR (status = 'paused' AND pause->>'kind' = 'timer' AND lease_expires_at <= now())
         ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, recoveries, status`,
      [leaseSeconds, limit],
    );
  }
}
