import { QueryTypes, type Sequelize } from 'sequelize';

/** What one heartbeat says about a worker. */
export interface HeartbeatInput {
  worker_id: string;
  roles: string[];
  queues: string[];
  /** per queue: how many jobs of that queue the worker runs at once */
  concurrency: Record<string, number>;
  version: string | null;
  hostname: string | null;
  in_flight: number;
  /** `source: 'kernel'` marks a kernel node's own heartbeat; `stopped_at` is set when it stops */
  meta: Record<string, unknown>;
}

/** A stored heartbeat, with its age measured by the database clock (one clock for every node). */
export interface HeartbeatRecord extends HeartbeatInput {
  last_seen_at: Date;
  age_seconds: number;
}

const COLUMNS = `worker_id, roles, queues, concurrency, version, hostname, in_flight, last_seen_at, meta,
  EXTRACT(EPOCH FROM (now() - last_seen_at))::float8 AS age_seconds`;

interface Row extends Omit<HeartbeatRecord, 'age_seconds' | 'last_seen_at'> {
  last_seen_at: Date | string;
  age_seconds: number | string;
}

function toRecord(row: Row): HeartbeatRecord {
  return { ...row, last_seen_at: new Date(row.last_seen_at), age_seconds: Math.max(0, Number(row.age_seconds)) };
}

/** Records one heartbeat (insert or overwrite), stamped with the database's `now()`. */
export async function recordHeartbeat(db: Sequelize, beat: HeartbeatInput): Promise<HeartbeatRecord> {
  const rows = await db.query<Row>(
    `INSERT INTO worker_heartbeats (worker_id, roles, queues, concurrency, version, hostname, in_flight, last_seen_at, meta)
     VALUES ($1, $2::jsonb, $3::jsonb, $4::jsonb, $5, $6, $7, now(), $8::jsonb)
     ON CONFLICT (worker_id) DO UPDATE SET
       roles = EXCLUDED.roles, queues = EXCLUDED.queues, concurrency = EXCLUDED.concurrency,
       version = EXCLUDED.version, hostname = EXCLUDED.hostname, in_flight = EXCLUDED.in_flight,
       last_seen_at = EXCLUDED.last_seen_at, meta = EXCLUDED.meta
     RETURNING ${COLUMNS}`,
    {
      type: QueryTypes.SELECT,
      bind: [
        beat.worker_id,
        JSON.stringify(beat.roles),
        JSON.stringify(beat.queues),
        JSON.stringify(beat.concurrency),
        beat.version,
        beat.hostname,
        beat.in_flight,
        JSON.stringify(beat.meta),
      ],
    },
  );
  return toRecord(rows[0]);
}

/** Every stored heartbeat, by worker id. */
export async function listHeartbeats(db: Sequelize): Promise<HeartbeatRecord[]> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM worker_heartbeats ORDER BY worker_id`, { type: QueryTypes.SELECT });
  return rows.map(toRecord);
}

/** Deletes the rows of workers silent for longer than `seconds` (a restarted node comes back under a new id); returns how many. */
export async function forgetSilentWorkers(db: Sequelize, seconds: number): Promise<number> {
  const [, result] = await db.query('DELETE FROM worker_heartbeats WHERE last_seen_at < now() - make_interval(secs => $1)', { bind: [seconds] });
  return (result as { rowCount?: number } | undefined)?.rowCount ?? 0;
}

/** Marks a worker as stopped on purpose (a kernel node shutting down): listed offline, not stale. */
export async function markStopped(db: Sequelize, workerId: string): Promise<void> {
  await db.query(
    `UPDATE worker_heartbeats SET in_flight = 0, meta = meta || jsonb_build_object('stopped_at', now()) WHERE worker_id = $1`,
    { bind: [workerId] },
  );
}
