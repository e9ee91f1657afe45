import test from 'ava';
import { mergeWorkers, workerStatus } from '../plugins/workers/worker-view.ts';
import { readNodeMetadata, queuesOfRoles } from '../plugins/workers/node-metadata.ts';
import type { HeartbeatRecord } from '../plugins/workers/heartbeat-store.ts';
import type { NodeSighting } from '../plugins/workers/registry-nodes.ts';

const STALE = 60;
const now = new Date('2026-01-01T12:00:00.000Z');

const sighting = (over: Partial<NodeSighting> = {}): NodeSighting => ({
  worker_id: 'n-1', local: false, available: true, age_seconds: 3, hostname: 'h1', in_flight: null,
  roles: ['work'], queues: ['work'], concurrency: { work: 4 }, version: '0.1.0', ...over,
});
const beat = (over: Partial<HeartbeatRecord> = {}): HeartbeatRecord => ({
  worker_id: 'n-1', roles: ['control'], queues: ['celery'], concurrency: { celery: 2 }, version: '0.0.9', hostname: 'h-old',
  in_flight: 5, meta: { source: 'kernel' }, last_seen_at: new Date(now.getTime() - 10_000), age_seconds: 10, ...over,
});

test('the status rule, case by case', (t) => {
  t.is(workerStatus(sighting({ local: true, age_seconds: 999 }), undefined, STALE), 'online', 'the answering node');
  t.is(workerStatus(sighting({ available: false }), beat({ age_seconds: 1 }), STALE), 'offline', 'disconnected in the registry');
  t.is(workerStatus(undefined, beat({ meta: { source: 'kernel', stopped_at: '2026-01-01T11:00:00Z' } }), STALE), 'offline', 'stopped on purpose');
  t.is(workerStatus(undefined, beat({ age_seconds: 59 }), STALE), 'online');
  t.is(workerStatus(undefined, beat({ age_seconds: 61 }), STALE), 'stale', 'silent longer than the window');
  t.is(workerStatus(sighting({ age_seconds: 2 }), beat({ age_seconds: 500 }), STALE), 'online', 'the newer of the two sources counts');
  t.is(workerStatus(sighting({ age_seconds: 90 }), undefined, STALE), 'stale', 'a registry node silent past the window');
  t.is(workerStatus(sighting(), beat({ meta: { stopped_at: 'x' } }), STALE), 'online', 'a live registry node is not offline because of an old stop mark');
});

test('merging: live metadata wins over the stored row, in-flight comes from heartbeats, one entry per id, sorted', (t) => {
  const views = mergeWorkers(
    [sighting({ worker_id: 'b-node' }), sighting({ worker_id: 'a-bare', roles: undefined, queues: undefined, concurrency: undefined, version: undefined, hostname: null })],
    [beat({ worker_id: 'b-node' }), beat({ worker_id: 'c-ext', meta: { source: 'heartbeat' }, age_seconds: 120 })],
    { now, staleSeconds: STALE },
  );
  t.deepEqual(views.map((v) => v.worker_id), ['a-bare', 'b-node', 'c-ext']);
  const [bare, node, ext] = views;
  t.like(node, { kind: 'node', roles: ['work'], queues: ['work'], concurrency: { work: 4 }, version: '0.1.0', hostname: 'h1', in_flight: 5, status: 'online' });
  t.deepEqual(node.seen_in, ['registry', 'heartbeats']);
  t.is(node.last_heartbeat_at, new Date(now.getTime() - 3000).toISOString());
  // a node of a build without metadata and without a heartbeat row: honest blanks
  t.like(bare, { kind: 'node', roles: [], queues: [], concurrency: {}, version: null, hostname: null, in_flight: null, status: 'online' });
  t.like(ext, { kind: 'external', status: 'stale', roles: ['control'] });
  t.deepEqual(ext.seen_in, ['heartbeats']);
});

test('node metadata is read defensively and concurrency is limited to the node\'s queues', (t) => {
  t.deepEqual(readNodeMetadata(undefined), {});
  t.deepEqual(readNodeMetadata({ roles: 'api' }), { roles: undefined, queues: undefined, concurrency: undefined, version: undefined });
  t.deepEqual(readNodeMetadata({ roles: ['api', 'work'], concurrency: { celery: 2, work: 4 }, version: '1.2.3' }), {
    roles: ['api', 'work'], queues: ['work'], concurrency: { work: 4 }, version: '1.2.3',
  });
  t.deepEqual(queuesOfRoles(['api', 'control', 'work']), ['celery', 'work']);
});
