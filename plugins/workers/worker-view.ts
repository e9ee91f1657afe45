import type { HeartbeatRecord } from './heartbeat-store.ts';
import type { NodeSighting } from './registry-nodes.ts';

export type WorkerStatus = 'online' | 'stale' | 'offline';

/** One worker as `GET /api/v1/workers` lists it. */
export interface WorkerView {
  worker_id: string;
  /** `node`: a kernel node (in the broker registry or recorded by one); `external`: known from heartbeats only */
  kind: 'node' | 'external';
  roles: string[];
  queues: string[];
  concurrency: Record<string, number>;
  version: string | null;
  hostname: string | null;
  in_flight: number | null;
  last_heartbeat_at: string | null;
  status: WorkerStatus;
  /** where this entry comes from: the broker registry, the heartbeat table, or both */
  seen_in: ('registry' | 'heartbeats')[];
}

/**
 * The status rule, in order:
 * 1. the node answering the request is `online`;
 * 2. a node the registry knows but reports disconnected is `offline`;
 * 3. a worker known only from heartbeats whose last one said it stopped is `offline`;
 * 4. otherwise a worker heard from (registry heartbeat or heartbeat row, whichever is newer)
 *    within `staleSeconds` is `online`, and one silent for longer is `stale`.
 */
export function workerStatus(sighting: NodeSighting | undefined, beat: HeartbeatRecord | undefined, staleSeconds: number): WorkerStatus {
  if (sighting?.local) return 'online';
  if (sighting && !sighting.available) return 'offline';
  if (!sighting && beat?.meta.stopped_at) return 'offline';
  const age = silentFor(sighting, beat);
  return age !== null && age > staleSeconds ? 'stale' : 'online';
}

/** Seconds since the worker was last heard from by either source; null when neither knows it. */
function silentFor(sighting: NodeSighting | undefined, beat: HeartbeatRecord | undefined): number | null {
  const ages = [sighting?.age_seconds, beat?.age_seconds].filter((a): a is number => typeof a === 'number');
  return ages.length ? Math.min(...ages) : null;
}

/**
 * Merges the registry's nodes with the heartbeat rows, one entry per worker id, sorted by id.
 * What a live node says in its metadata wins over its stored heartbeat; in-flight counts come
 * from heartbeats (live for the answering node).
 */
export function mergeWorkers(sightings: NodeSighting[], beats: HeartbeatRecord[], opts: { now: Date; staleSeconds: number }): WorkerView[] {
  const byId = new Map<string, { sighting?: NodeSighting; beat?: HeartbeatRecord }>();
  for (const s of sightings) byId.set(s.worker_id, { sighting: s });
  for (const b of beats) byId.set(b.worker_id, { ...byId.get(b.worker_id), beat: b });
  const views = [...byId.entries()].map(([workerId, { sighting, beat }]) => {
    const age = silentFor(sighting, beat);
    const seen: WorkerView['seen_in'] = [];
    if (sighting) seen.push('registry');
    if (beat) seen.push('heartbeats');
    return {
      worker_id: workerId,
      kind: sighting || beat?.meta.source === 'kernel' ? 'node' : 'external',
      roles: sighting?.roles ?? beat?.roles ?? [],
      queues: sighting?.queues ?? beat?.queues ?? [],
      concurrency: sighting?.concurrency ?? beat?.concurrency ?? {},
      version: sighting?.version ?? beat?.version ?? null,
      hostname: sighting?.hostname ?? beat?.hostname ?? null,
      in_flight: sighting?.in_flight ?? beat?.in_flight ?? null,
      last_heartbeat_at: age === null ? null : new Date(opts.now.getTime() - Math.round(age * 1000)).toISOString(),
      status: workerStatus(sighting, beat, opts.staleSeconds),
      seen_in: seen,
    } satisfies WorkerView;
  });
  return views.sort((a, b) => (a.worker_id < b.worker_id ? -1 : a.worker_id > b.worker_id ? 1 : 0));
}
