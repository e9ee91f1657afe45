import test from 'ava';
import { api } from './helpers/kernel.ts';
import { anyHashLeaked, login, OWNER_EMAIL, OWNER_PASSWORD, startAuth, type AuthSetup } from './auth-support.ts';

let setup: AuthSetup;
let url: string;
const seen: string[] = [];
let ownerA: string; // first owner, entity A
let ownerB: string; // registered owner of entity B
const ids: Record<string, string> = {};
const PASSWORD = 'initial password 123';

async function call(path: string, init: Parameters<typeof api>[2] = {}) {
  const res = await api(url, path, init);
  seen.push(res.text);
  return res;
}
const userRow = async (id: string) => (await setup.node.rows<Record<string, unknown>>('SELECT * FROM users WHERE id = :id', { id }))[0];
const countUsers = async () => (await setup.node.rows<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0].n;
const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field).sort();

test.before(async () => {
  setup = await startAuth('auth_users', { SIGNUP_ENABLED: 'true' });
  url = setup.node.url;
  ownerA = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  ids.ownerA = (await api(url, '/api/v1/auth/me', { token: ownerA })).body.id;
});
test.after.always(async () => {
  await setup?.close();
});

test.serial('with SIGNUP_ENABLED=true, register creates an entity and its owner and returns a token', async (t) => {
  const res = await call('/api/v1/auth/register', { method: 'POST', json: { entity_name: 'Beta Ltd', email: 'Boss@Beta.test', password: 'beta owner password' } });
  t.is(res.status, 201, res.text);
  t.is(res.body.token_type, 'bearer');
  t.like(res.body.user, { email: 'boss@beta.test', role: 'owner', status: 'active' });
  t.like(res.body.entity, { name: 'Beta Ltd' });
  ownerB = res.body.access_token;
  ids.ownerB = res.body.user.id;
  const me = await call('/api/v1/entities/me', { token: ownerB });
  t.is(me.body.id, res.body.entity.id);
  const entityA = (await call('/api/v1/entities/me', { token: ownerA })).body.id;
  t.not(entityA, me.body.id);

  // the same email again, in any case, is a 409 that creates no entity
  const entitiesBefore = (await setup.node.rows('SELECT id FROM entities')).length;
  const again = await call('/api/v1/auth/register', { method: 'POST', json: { entity_name: 'Gamma', email: 'BOSS@beta.test', password: 'another long password' } });
  t.is(again.status, 409);
  t.is(again.body.code, 'AUTH_ERR_EMAIL_TAKEN');
  t.is((await setup.node.rows('SELECT id FROM entities')).length, entitiesBefore);
});

test.serial('an owner invites users; the list is paged and scoped to the entity', async (t) => {
  for (const [key, role] of [['admin', 'admin'], ['member', 'member'], ['member2', 'member']] as const) {
    const res = await call('/api/v1/users', { method: 'POST', token: ownerA, json: { email: `${key}@alpha.test`, password: PASSWORD, role, name: `The ${key}` } });
    t.is(res.status, 201, res.text);
    t.like(res.body, { email: `${key}@alpha.test`, role, status: 'active', name: `The ${key}`, last_login_at: null });
    ids[key] = res.body.id;
  }
  const noRole = await call('/api/v1/users', { method: 'POST', token: ownerA, json: { email: 'Plain@Alpha.test', password: PASSWORD } });
  t.like(noRole.body, { email: 'plain@alpha.test', role: 'member', name: 'plain' });
  ids.plain = noRole.body.id;

  const all = await call('/api/v1/users', { token: ownerA });
  t.is(all.status, 200);
  t.is(all.body.total, 5);
  t.deepEqual(all.body.items.map((u: { email: string }) => u.email), [OWNER_EMAIL, 'admin@alpha.test', 'member@alpha.test', 'member2@alpha.test', 'plain@alpha.test']);
  const page = await call('/api/v1/users?limit=2&offset=1', { token: ownerA });
  t.like(page.body, { total: 5, limit: 2, offset: 1 });
  t.deepEqual(page.body.items.map((u: { email: string }) => u.email), ['admin@alpha.test', 'member@alpha.test']);
  t.is((await call('/api/v1/users?limit=500', { token: ownerA })).status, 422);

  const listB = await call('/api/v1/users', { token: ownerB });
  t.deepEqual(listB.body.items.map((u: { email: string }) => u.email), ['boss@beta.test']);
});

test.serial('a member cannot manage users (403) and changes nothing', async (t) => {
  const member = await login(url, 'member@alpha.test', PASSWORD);
  const before = await countUsers();
  const tries = [
    await call('/api/v1/users', { token: member }),
    await call('/api/v1/users', { method: 'POST', token: member, json: { email: 'sneaky@alpha.test', password: PASSWORD } }),
    await call(`/api/v1/users/${ids.member2}`, { method: 'PUT', token: member, json: { role: 'admin' } }),
    await call(`/api/v1/users/${ids.member2}`, { method: 'DELETE', token: member }),
  ];
  t.deepEqual(tries.map((r) => r.status), [403, 403, 403, 403]);
  t.true(tries.every((r) => r.body.code === 'FORBIDDEN'));
  t.is(await countUsers(), before);
  t.like(await userRow(ids.member2), { role: 'member', status: 'active' });
});

test.serial('an admin cannot create, promote to, or change an owner', async (t) => {
  const admin = await login(url, 'admin@alpha.test', PASSWORD);
  const before = await countUsers();
  const create = await call('/api/v1/users', { method: 'POST', token: admin, json: { email: 'boss2@alpha.test', password: PASSWORD, role: 'owner' } });
  const promote = await call(`/api/v1/users/${ids.member2}`, { method: 'PUT', token: admin, json: { role: 'owner' } });
  const renameOwner = await call(`/api/v1/users/${ids.ownerA}`, { method: 'PUT', token: admin, json: { name: 'Renamed' } });
  const removeOwner = await call(`/api/v1/users/${ids.ownerA}`, { method: 'DELETE', token: admin });
  t.deepEqual([create, promote, renameOwner, removeOwner].map((r) => r.status), [403, 403, 403, 403]);
  t.is(await countUsers(), before);
  t.like(await userRow(ids.member2), { role: 'member' });
  t.like(await userRow(ids.ownerA), { role: 'owner', status: 'active', name: 'owner' });
  // what an admin may do
  const rename = await call(`/api/v1/users/${ids.member2}`, { method: 'PUT', token: admin, json: { name: 'Second member' } });
  t.is(rename.status, 200, rename.text);
  t.is(rename.body.name, 'Second member');
});

test.serial('nobody can demote or deactivate the last active owner (409); with a second owner it works', async (t) => {
  const demote = await call(`/api/v1/users/${ids.ownerA}`, { method: 'PUT', token: ownerA, json: { role: 'admin' } });
  t.is(demote.status, 409);
  t.is(demote.body.code, 'AUTH_ERR_LAST_OWNER');
  const deactivate = await call(`/api/v1/users/${ids.ownerA}`, { method: 'PUT', token: ownerA, json: { status: 'deactivated' } });
  t.is(deactivate.status, 409);
  t.is((await call(`/api/v1/users/${ids.ownerA}`, { method: 'DELETE', token: ownerA })).status, 409);
  t.like(await userRow(ids.ownerA), { role: 'owner', status: 'active' });

  t.is((await call(`/api/v1/users/${ids.admin}`, { method: 'PUT', token: ownerA, json: { role: 'owner' } })).status, 200);
  const ok = await call(`/api/v1/users/${ids.ownerA}`, { method: 'PUT', token: ownerA, json: { role: 'admin' } });
  t.is(ok.status, 200, ok.text);
  // ownerA is an admin now, at once: it may no longer change an owner
  t.is((await call(`/api/v1/users/${ids.admin}`, { method: 'PUT', token: ownerA, json: { name: 'x' } })).status, 403);
  const newOwner = await login(url, 'admin@alpha.test', PASSWORD);
  t.is((await call(`/api/v1/users/${ids.ownerA}`, { method: 'PUT', token: newOwner, json: { role: 'owner' } })).status, 200);
  t.is((await call(`/api/v1/users/${ids.admin}`, { method: 'PUT', token: ownerA, json: { role: 'admin' } })).status, 200);
});

test.serial("another entity's user is 404 for every route and method, and is left as it was", async (t) => {
  const before = await userRow(ids.member2);
  const put = await call(`/api/v1/users/${ids.member2}`, { method: 'PUT', token: ownerB, json: { name: 'Hijacked', role: 'admin' } });
  const del = await call(`/api/v1/users/${ids.member2}`, { method: 'DELETE', token: ownerB });
  t.deepEqual([put.status, del.status], [404, 404]);
  t.is(put.body.code, 'NOT_FOUND');
  const list = await call('/api/v1/users', { token: ownerB });
  t.false(list.body.items.some((u: { id: string }) => u.id === ids.member2));
  t.deepEqual(await userRow(ids.member2), before);
  // and the other way round
  t.is((await call(`/api/v1/users/${ids.ownerB}`, { method: 'PUT', token: ownerA, json: { name: 'x' } })).status, 404);
  t.is((await call(`/api/v1/users/${ids.ownerB}`, { method: 'DELETE', token: ownerA })).status, 404);
  t.like(await userRow(ids.ownerB), { status: 'active', role: 'owner' });
});

test.serial('bad bodies get 422 naming the field, and change nothing', async (t) => {
  const before = await countUsers();
  const create = (json: unknown) => call('/api/v1/users', { method: 'POST', token: ownerA, json });
  const cases: [unknown, string[]][] = [
    [{ email: 'a@alpha.test', password: PASSWORD, admin: true }, ['admin']],
    [{ email: 42, password: PASSWORD }, ['email']],
    [{ email: 'not-an-email', password: PASSWORD }, ['email']],
    [{ email: 'a@alpha.test', password: PASSWORD, role: 'king' }, ['role']],
    [{ email: 'a@alpha.test', password: PASSWORD, name: 'n'.repeat(201) }, ['name']],
    [{ password: PASSWORD }, ['email']],
    [{ email: 'a@alpha.test' }, ['password']],
    [{ email: 'a@alpha.test', password: 'elevenchars' }, ['password']],
    [{ email: 'a@alpha.test', password: 'p'.repeat(257) }, ['password']],
  ];
  for (const [json, expected] of cases) {
    const res = await create(json);
    t.is(res.status, 422, JSON.stringify(json).slice(0, 80));
    t.is(res.body.code, 'VALIDATION_FAILED');
    t.deepEqual(fields(res), expected, JSON.stringify(json).slice(0, 80));
  }
  t.is(await countUsers(), before);

  const row = await userRow(ids.member2);
  const update = (json: unknown, id = ids.member2) => call(`/api/v1/users/${id}`, { method: 'PUT', token: ownerA, json });
  for (const [json, expected] of [
    [{ name: 'ok', password_hash: 'x' }, ['password_hash']],
    [{ status: 'gone' }, ['status']],
    [{ role: 1 }, ['role']],
    [{ name: 'n'.repeat(201) }, ['name']],
    [{ name: '' }, ['name']],
  ] as [unknown, string[]][]) {
    const res = await update(json);
    t.is(res.status, 422, JSON.stringify(json).slice(0, 80));
    t.deepEqual(fields(res), expected);
  }
  t.deepEqual(fields(await update({ name: 'x' }, 'not-a-uuid')), ['id']);
  t.deepEqual(await userRow(ids.member2), row);

  const reg = await call('/api/v1/auth/register', { method: 'POST', json: { entity_name: 'e'.repeat(201), email: 'x@y.test', password: 'short' } });
  t.is(reg.status, 422);
  t.deepEqual(fields(reg), ['entity_name', 'password']);
  const pw = await call('/api/v1/auth/password', { method: 'PUT', token: ownerA, json: { new_password: 'long enough new password' } });
  t.deepEqual(fields(pw), ['current_password']);
  const loginBad = await call('/api/v1/auth/login', { method: 'POST', json: { email: OWNER_EMAIL, password: OWNER_PASSWORD, remember: true } });
  t.is(loginBad.status, 422);
  t.deepEqual(fields(loginBad), ['remember']);
  t.is(await countUsers(), before);
});

test.serial('deactivation revokes the tokens at once and refuses login like a wrong password; reactivation allows login again', async (t) => {
  const member = await login(url, 'member@alpha.test', PASSWORD);
  t.is((await call('/api/v1/auth/me', { token: member })).status, 200); // cached now
  const del = await call(`/api/v1/users/${ids.member}`, { method: 'DELETE', token: ownerA });
  t.is(del.status, 204, del.text);
  t.is((await call('/api/v1/auth/me', { token: member })).status, 401);
  t.like(await userRow(ids.member), { status: 'deactivated' });
  t.deepEqual(await setup.node.rows('SELECT id FROM auth_tokens WHERE user_id = :id AND revoked_at IS NULL', { id: ids.member }), []);

  const refused = await call('/api/v1/auth/login', { method: 'POST', json: { email: 'member@alpha.test', password: PASSWORD } });
  const wrong = await call('/api/v1/auth/login', { method: 'POST', json: { email: 'member2@alpha.test', password: 'wrong password here' } });
  t.is(refused.status, 401);
  const { request_id: _a, ...a } = refused.body;
  const { request_id: _b, ...b } = wrong.body;
  t.deepEqual(a, b);

  const back = await call(`/api/v1/users/${ids.member}`, { method: 'PUT', token: ownerA, json: { status: 'active' } });
  t.is(back.status, 200);
  t.is(back.body.status, 'active');
  await login(url, 'member@alpha.test', PASSWORD);
});

test.serial("a role change applies to the user's live token at once", async (t) => {
  const token = await login(url, 'member2@alpha.test', PASSWORD);
  t.is((await call('/api/v1/users', { token })).status, 403);
  t.is((await call(`/api/v1/users/${ids.member2}`, { method: 'PUT', token: ownerA, json: { role: 'admin' } })).status, 200);
  t.is((await call('/api/v1/users', { token })).status, 200);
  t.is((await call('/api/v1/auth/me', { token })).body.role, 'admin');
});

test.serial('no response ever carried a password hash', async (t) => {
  t.true(seen.length > 40);
  t.false(await anyHashLeaked(setup.node, seen));
});
