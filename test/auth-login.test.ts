import test from 'ava';
import { api } from './helpers/kernel.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';
import { anyHashLeaked, login, OWNER_EMAIL, OWNER_PASSWORD, startAuth, type AuthSetup } from './auth-support.ts';

let setup: AuthSetup;
let url: string;
const seen: string[] = [];

test.before(async () => {
  setup = await startAuth('auth_login');
  url = setup.node.url;
});
test.after.always(async () => {
  await setup?.close();
});

/** api() that keeps every answer, for the "no hash ever leaks" check at the end */
async function call(path: string, init: Parameters<typeof api>[2] = {}) {
  const res = await api(url, path, init);
  seen.push(res.text);
  return res;
}

test.serial('first start created the owner from ADMIN_EMAIL / ADMIN_PASSWORD, with a scrypt hash', async (t) => {
  const users = await setup.node.rows<{ email: string; role: string; status: string; password_hash: string; entity_id: string }>('SELECT * FROM users');
  t.is(users.length, 1);
  t.like(users[0], { email: OWNER_EMAIL, role: 'owner', status: 'active' });
  t.regex(users[0].password_hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
  t.false(users[0].password_hash.includes(OWNER_PASSWORD));
  const entities = await setup.node.rows<{ id: string }>('SELECT * FROM entities');
  t.deepEqual(entities.map((e) => e.id), [users[0].entity_id]);
});

test.serial('login, then me and entities/me', async (t) => {
  const res = await call('/api/v1/auth/login', { method: 'POST', json: { email: OWNER_EMAIL.toUpperCase(), password: OWNER_PASSWORD } });
  t.is(res.status, 200, res.text);
  t.is(res.body.token_type, 'bearer');
  t.is(res.body.expires_in, 86400);
  t.regex(res.body.access_token, /^[A-Za-z0-9_-]{43}$/);
  const token = res.body.access_token;

  const me = await call('/api/v1/auth/me', { token });
  t.is(me.status, 200, me.text);
  t.like(me.body, { email: OWNER_EMAIL, role: 'owner', status: 'active' });
  t.regex(me.body.last_login_at, /Z$/);
  t.deepEqual(Object.keys(me.body).sort(), ['created_at', 'email', 'entity_id', 'id', 'last_login_at', 'name', 'role', 'status', 'updated_at']);

  const entity = await call('/api/v1/entities/me', { token });
  t.is(entity.status, 200, entity.text);
  t.is(entity.body.id, me.body.entity_id);
  t.deepEqual(Object.keys(entity.body).sort(), ['created_at', 'id', 'name', 'updated_at']);

  // only the hash of the token is stored
  const rows = await setup.node.rows<{ token_hash: string }>('SELECT token_hash FROM auth_tokens');
  t.true(rows.length >= 1);
  t.false(rows.some((r) => r.token_hash === token));
});

test.serial('an unknown email and a wrong password get the same 401 (status, headers, body)', async (t) => {
  const unknown = await call('/api/v1/auth/login', { method: 'POST', json: { email: 'nobody@auth.test', password: OWNER_PASSWORD } });
  const wrong = await call('/api/v1/auth/login', { method: 'POST', json: { email: OWNER_EMAIL, password: 'not the password at all' } });
  t.is(unknown.status, 401);
  t.is(wrong.status, 401);
  const { request_id: _a, ...unknownBody } = unknown.body;
  const { request_id: _b, ...wrongBody } = wrong.body;
  t.deepEqual(unknownBody, wrongBody);
  t.is(unknownBody.code, 'UNAUTHORIZED');
  t.is(unknownBody.detail, 'Invalid email or password.');
  t.is(unknown.headers.get('www-authenticate'), wrong.headers.get('www-authenticate'));
  t.is(unknown.headers.get('content-type'), wrong.headers.get('content-type'));
});

test.serial('a missing, malformed or unknown token gets 401', async (t) => {
  for (const headers of <Record<string, string>[]>[{}, { Authorization: 'Basic abc' }, { Authorization: 'Bearer two words' }, { Authorization: 'Bearer ' + 'x'.repeat(600) }, { Authorization: 'Bearer not-a-real-token' }]) {
    const res = await call('/api/v1/auth/me', { headers });
    t.is(res.status, 401, JSON.stringify(headers).slice(0, 60));
    t.is(res.body.code, 'UNAUTHORIZED');
    t.is(res.headers.get('www-authenticate'), 'Bearer');
  }
});

test.serial('token checks are answered from memory: at most one database lookup per token per second', async (t) => {
  const token = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  const service = setup.node.kernel.broker.getLocalService('auth') as unknown as { deps: { db: { query: (...args: unknown[]) => unknown } } };
  const realDb = service.deps.db;
  let lookups = 0;
  service.deps.db = new Proxy(realDb, {
    get(target, prop) {
      if (prop === 'query') {
        return (sql: unknown, ...rest: unknown[]) => {
          if (String(sql).includes('FROM auth_tokens t JOIN users')) lookups++;
          return target.query(sql, ...rest);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  try {
    const started = Date.now();
    let requests = 0;
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => api(url, '/api/v1/entities/me', { token })));
      requests += answers.length;
      t.true(answers.every((a) => a.status === 200));
    }
    const elapsedSeconds = Math.ceil((Date.now() - started) / 1000);
    t.log(`${requests} authenticated requests, ${lookups} token lookup(s) in the database, over ${elapsedSeconds} s`);
    t.true(lookups >= 1);
    t.true(lookups <= elapsedSeconds + 1, `${lookups} lookups in ${elapsedSeconds} s`);
  } finally {
    service.deps.db = realDb;
  }
});

test.serial('an expired token gets 401', async (t) => {
  const token = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  // a token this node has not seen yet, so no cached answer is involved
  await setup.node.kernel.stores!.db.query("UPDATE auth_tokens SET expires_at = now() - interval '1 second' WHERE expires_at > now() AND last_used_at IS NULL");
  const res = await call('/api/v1/auth/me', { token });
  t.is(res.status, 401);
  t.is(res.body.code, 'UNAUTHORIZED');
});

test.serial('logout revokes the token (204); it is refused at once on this node', async (t) => {
  const token = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  t.is((await call('/api/v1/auth/me', { token })).status, 200); // now cached on this node
  const out = await call('/api/v1/auth/logout', { method: 'POST', token });
  t.is(out.status, 204);
  t.is((await call('/api/v1/auth/me', { token })).status, 401);
  t.is((await call('/api/v1/auth/logout', { method: 'POST', token })).status, 401);
  const [row] = await setup.node.rows<{ revoked_at: Date | null }>('SELECT revoked_at FROM auth_tokens ORDER BY created_at DESC LIMIT 1');
  t.truthy(row.revoked_at);
});

test.serial('refresh gives a new token with a fresh lifetime; the old one is refused', async (t) => {
  const old = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  t.is((await call('/api/v1/auth/me', { token: old })).status, 200);
  await setup.node.kernel.stores!.db.query("UPDATE auth_tokens SET expires_at = now() + interval '60 seconds' WHERE revoked_at IS NULL");
  const res = await call('/api/v1/auth/refresh', { method: 'POST', token: old });
  t.is(res.status, 200, res.text);
  t.is(res.body.token_type, 'bearer');
  t.is(res.body.expires_in, 86400);
  t.not(res.body.access_token, old);
  t.is((await call('/api/v1/auth/me', { token: old })).status, 401);
  t.is((await call('/api/v1/auth/refresh', { method: 'POST', token: old })).status, 401, 'a refreshed-away token cannot be refreshed again');
  t.is((await call('/api/v1/auth/me', { token: res.body.access_token })).status, 200);
  const [fresh] = await setup.node.rows<{ seconds: number }>(
    'SELECT EXTRACT(EPOCH FROM (expires_at - created_at))::int AS seconds FROM auth_tokens WHERE revoked_at IS NULL ORDER BY created_at DESC LIMIT 1',
  );
  t.is(fresh.seconds, 86400);
});

test.serial('change password: wrong current is a 422 naming current_password; success revokes the other tokens', async (t) => {
  const current = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  const other = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  t.is((await call('/api/v1/auth/me', { token: other })).status, 200);
  const [before] = await setup.node.rows<{ password_hash: string }>('SELECT password_hash FROM users');

  const wrong = await call('/api/v1/auth/password', { method: 'PUT', token: current, json: { current_password: 'definitely not it', new_password: 'a brand new passphrase' } });
  t.is(wrong.status, 422);
  t.deepEqual(wrong.body.errors.map((e: { field: string }) => e.field), ['current_password']);
  const short = await call('/api/v1/auth/password', { method: 'PUT', token: current, json: { current_password: OWNER_PASSWORD, new_password: 'short' } });
  t.is(short.status, 422);
  t.deepEqual(short.body.errors.map((e: { field: string }) => e.field), ['new_password']);
  const [unchanged] = await setup.node.rows<{ password_hash: string }>('SELECT password_hash FROM users');
  t.is(unchanged.password_hash, before.password_hash, 'a rejected change changes nothing');
  t.is((await call('/api/v1/auth/me', { token: other })).status, 200);

  const ok = await call('/api/v1/auth/password', { method: 'PUT', token: current, json: { current_password: OWNER_PASSWORD, new_password: 'a brand new passphrase' } });
  t.is(ok.status, 204, ok.text);
  t.is((await call('/api/v1/auth/me', { token: other })).status, 401, 'the other token is revoked');
  t.is((await call('/api/v1/auth/me', { token: current })).status, 200, 'the token that changed it stays valid');
  t.is((await call('/api/v1/auth/login', { method: 'POST', json: { email: OWNER_EMAIL, password: OWNER_PASSWORD } })).status, 401);
  await login(url, OWNER_EMAIL, 'a brand new passphrase');
  // put it back for the other tests
  const back = await call('/api/v1/auth/password', { method: 'PUT', token: current, json: { current_password: 'a brand new passphrase', new_password: OWNER_PASSWORD } });
  t.is(back.status, 204);
});

test.serial('sign-up is off by default: register answers 403 and creates nothing', async (t) => {
  const res = await call('/api/v1/auth/register', { method: 'POST', json: { entity_name: 'Acme', email: 'new@acme.test', password: 'long enough password' } });
  t.is(res.status, 403);
  t.is(res.body.code, 'AUTH_ERR_SIGNUP_DISABLED');
  t.deepEqual(await setup.node.rows("SELECT id FROM users WHERE email = 'new@acme.test'"), []);
  t.is((await setup.node.rows('SELECT id FROM entities')).length, 1);
});

test.serial('auth.authenticate is not reachable over HTTP; the public routes are documented as public', async (t) => {
  const token = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  t.is((await call('/api/v1/auth/authenticate', { method: 'POST', token, json: { token } })).status, 404);
  const doc = (await api(url, '/api/openapi.json')).body;
  t.deepEqual(doc.paths['/api/v1/auth/login'].post.security, []);
  t.deepEqual(doc.paths['/api/v1/auth/register'].post.security, []);
  t.truthy(doc.paths['/api/v1/auth/me'].get);
  t.truthy(doc.paths['/api/v1/entities/me'].get);
  t.truthy(doc.paths['/api/v1/users/{id}'].put);
  await t.notThrowsAsync(validateOpenApi(doc));
});

test.serial('no response ever carried a password hash', async (t) => {
  t.true(seen.length > 20);
  t.false(await anyHashLeaked(setup.node, seen));
});
