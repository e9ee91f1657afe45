import test from 'ava';
import { createHash } from 'node:crypto';
import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { useTasksKernel } from './helpers/tasks-kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { answerWith, claimCte, claimLost, inlineClaimOf, markClaimTaken } from '../kernel/idempotency/inline.ts';

/**
 * `POST /api/v1/tasks` claims its Idempotency-Key inside the task's own insert
 * (`idempotency: 'inline'`, kernel/idempotency/inline.ts): the same rules as every keyed
 * route, with key and task committed in one statement.
 */

let untakenRuns = 0;
let mispredictedRuns = 0;
const fixture = useTasksKernel(test, 'idempotency_inline', {}, async (tk) => {
  // a route declaring an inline claim whose action forgets to take it
  tk.kernel.broker.createService({
    name: 'idem-untaken',
    settings: { rest: '/idem-untaken' },
    actions: {
      create: {
        rest: 'POST /',
        idempotency: 'inline',
        params: { n: 'number' },
        response: { 201: { type: 'object' } },
        handler(ctx: Context<{ n: number }, { $statusCode?: number }>) {
          untakenRuns += 1;
          ctx.meta.$statusCode = 201;
          return { id: `u-${untakenRuns}`, n: ctx.params.n };
        },
      },
    },
  } as never);
  // a route that takes its claim with an answer other than the one it then sends
  tk.kernel.broker.createService({
    name: 'idem-mispredicted',
    settings: { rest: '/idem-mispredicted' },
    actions: {
      create: {
        rest: 'POST /',
        idempotency: 'inline',
        params: { n: 'number' },
        response: { 201: { type: 'object' } },
        async handler(ctx: Context<{ n: number }, { $statusCode?: number }>) {
          const offered = inlineClaimOf(ctx);
          if (offered) {
            const claim = answerWith(offered, 201, { id: `m-${mispredictedRuns + 1}`, n: ctx.params.n });
            const binds: unknown[] = [];
            const { cte, guard } = claimCte((v) => `$${binds.push(v)}`, claim);
            const [took] = await tk.kernel.stores!.db.query<{ took: boolean }>(`WITH ${cte} SELECT ${guard} AS took`, { bind: binds, type: QueryTypes.SELECT });
            if (!took.took) throw claimLost();
            markClaimTaken(ctx, claim);
          }
          mispredictedRuns += 1; // the effect: past the claim
          ctx.meta.$statusCode = 201;
          return { id: `m-${mispredictedRuns}`, n: ctx.params.n, sent: true };
        },
      },
    },
  } as never);
  await eventually(async () => (await tk.call('/api/v1/idem-untaken', { method: 'POST', token: 'owner-token', json: { n: 0 } })).status === 201);
  untakenRuns = 0;
});
const owner = 'owner-token';

async function rows<T extends object>(sql: string, replacements: Record<string, unknown>): Promise<T[]> {
  return fixture.tk.kernel.stores!.db.query<T>(sql, { replacements, type: QueryTypes.SELECT });
}
const tasksTitled = async (title: string) => (await rows<{ id: string }>('SELECT id FROM tasks WHERE title = :title', { title })).length;
const keyRow = async (key: string) =>
  (await rows<{ state: string; status: number | null; claim_id: string; location: string | null; body: Buffer | null }>('SELECT state, status, claim_id::text, location, body FROM idempotency_keys WHERE key = :key', { key }))[0];

function post(json: unknown, key: string, path = '/api/v1/tasks') {
  return fixture.tk.call(path, { method: 'POST', token: owner, json, headers: { 'Idempotency-Key': key } });
}

/** the fingerprint the gateway computes for a JSON POST (method, target, parsed body) */
function fingerprint(path: string, body: unknown): string {
  return createHash('sha256').update(`POST ${path}\n${JSON.stringify(body)}`).digest('hex');
}

/** a key row as another request would have left it, claimed `ageSql` ago and still in flight */
async function inFlightKey(key: string, body: unknown, ageSql: string): Promise<void> {
  await fixture.tk.kernel.stores!.db.query(
    `INSERT INTO idempotency_keys (scope, key, fingerprint, claim_id, state, claimed_at, expires_at)
     VALUES ('entity:e-1', :key, :fingerprint, gen_random_uuid(), 'in_flight', now() - interval '${ageSql}', now() + interval '1 day')`,
    { replacements: { key, fingerprint: fingerprint('/api/v1/tasks', body) } },
  );
}

test('ten simultaneous creates with one key and body make one task; the others replay it or are told it is in flight', async (t) => {
  const title = 'raced create';
  const answers = await Promise.all(Array.from({ length: 10 }, () => post({ title }, 'raced')));
  t.is(await tasksTitled(title), 1, 'one task');
  const created = answers.filter((a) => a.status === 201);
  t.true(created.length >= 1);
  for (const a of answers) t.true(a.status === 201 || (a.status === 409 && a.body.code === 'IDEMPOTENCY_KEY_IN_FLIGHT'), `${a.status}: ${a.text}`);
  t.is(new Set(created.map((a) => a.body.id)).size, 1, 'every 201 names the same task');
  t.is(created.filter((a) => a.headers.get('Idempotent-Replayed') !== 'true').length, 1, 'one original answer');
});

test('the key commits with the task and its answer, in the same write; a replay derives the same Location', async (t) => {
  const first = await post({ title: 'kept answer', priority: 2, deadline: '2031-05-06T07:08:09.123Z' }, 'kept');
  t.is(first.status, 201, first.text);
  // no eventually: the answer was in the insert, before the response went out
  const row = await keyRow('kept');
  t.is(row?.state, 'done');
  t.is(row?.status, 201);
  t.is(row?.location, null, 'kept with the claim: derived from the body when replayed');
  t.is(row?.body?.toString('utf8'), first.text, 'the answer kept is the one sent, byte for byte');
  const again = await post({ title: 'kept answer', priority: 2, deadline: '2031-05-06T07:08:09.123Z' }, 'kept');
  t.is(again.status, 201);
  t.is(again.headers.get('Idempotent-Replayed'), 'true');
  t.is(again.headers.get('Location'), first.headers.get('Location'));
  t.is(again.headers.get('Location'), `/api/v1/tasks/${first.body.id}`);
  t.is(again.text, first.text);
  t.is(await tasksTitled('kept answer'), 1);
});

test('an answer kept with the claim other than the one sent is replaced by the sent one', async (t) => {
  const first = await post({ n: 5 }, 'mispredicted', '/api/v1/idem-mispredicted');
  t.is(first.status, 201, first.text);
  t.true(first.body.sent);
  const row = await eventually(async () => ((await keyRow('mispredicted'))?.body?.toString('utf8') === first.text ? keyRow('mispredicted') : undefined));
  t.is(row?.location, first.headers.get('Location'));
  const again = await post({ n: 5 }, 'mispredicted', '/api/v1/idem-mispredicted');
  t.is(again.headers.get('Idempotent-Replayed'), 'true');
  t.is(again.text, first.text);
  t.is(again.headers.get('Location'), first.headers.get('Location'));
  t.is(mispredictedRuns, 1);
});

test('a key another live request holds is a 409 and no task is made', async (t) => {
  const body = { title: 'held elsewhere' };
  await inFlightKey('held', body, '1 second');
  const res = await post(body, 'held');
  t.is(res.status, 409, res.text);
  t.is(res.body.code, 'IDEMPOTENCY_KEY_IN_FLIGHT');
  t.is(await tasksTitled(body.title), 0);
  t.is((await keyRow('held'))?.state, 'in_flight', 'the holder keeps its key');
});

test('a key held by a request abandoned long ago is taken over by the insert', async (t) => {
  const body = { title: 'abandoned key' };
  await inFlightKey('abandoned', body, '1 day');
  const res = await post(body, 'abandoned');
  t.is(res.status, 201, res.text);
  t.is(res.headers.get('Idempotent-Replayed'), null);
  t.is(await tasksTitled(body.title), 1);
  const replay = await post(body, 'abandoned');
  t.is(replay.headers.get('Idempotent-Replayed'), 'true');
});

test('another body under a held key is a 422 whether the holder has answered or not', async (t) => {
  await inFlightKey('other-body', { title: 'the first body' }, '1 second');
  const res = await post({ title: 'another body' }, 'other-body');
  t.is(res.status, 422, res.text);
  t.is(res.body.code, 'IDEMPOTENCY_KEY_REUSED');
  t.is(await tasksTitled('another body'), 0);
});

test('an action that declares an inline claim but does not take it is made idempotent after the fact, and claimed before it runs from then on', async (t) => {
  const first = await post({ n: 1 }, 'untaken', '/api/v1/idem-untaken');
  t.is(first.status, 201, first.text);
  await eventually(async () => (await keyRow('untaken'))?.state === 'done');
  const again = await post({ n: 1 }, 'untaken', '/api/v1/idem-untaken');
  t.is(again.headers.get('Idempotent-Replayed'), 'true');
  t.deepEqual(again.body, first.body);
  t.is(untakenRuns, 1);
  const other = await post({ n: 2 }, 'untaken', '/api/v1/idem-untaken');
  t.is(other.status, 422, 'another body under the key kept after the fact');
  t.is(untakenRuns, 1);
});
