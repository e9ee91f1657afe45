import test from 'ava';
import { randomUUID } from 'node:crypto';
import { api } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { eventually } from './helpers/eventually.ts';
import { authOnlyRoot, login, OWNER_EMAIL, OWNER_PASSWORD, startAuthNode, type AuthNode } from './auth-support.ts';

let db: TestDatabase;
let root: ReturnType<typeof authOnlyRoot>;
let nodeA: AuthNode;
let nodeB: AuthNode;

test.before(async () => {
  db = await createTestDatabase('auth_cluster');
  root = authOnlyRoot();
  const common = { DATABASE_URL: db.url, TRANSPORTER: 'nats://127.0.0.1:4222', NAMESPACE: `auth-${randomUUID().slice(0, 8)}`, REQUEST_TIMEOUT_SECONDS: '5' };
  // both start at once on an empty database: exactly one of them creates the first owner
  [nodeA, nodeB] = await Promise.all([
    startAuthNode(root.root, { ...common, NODE_ID: 'auth-a' }),
    startAuthNode(root.root, { ...common, NODE_ID: 'auth-b' }),
  ]);
  // each node sees the other's auth service (so broadcasts reach it)
  const seesPeer = (n: AuthNode, peer: string) =>
    (n.kernel.broker.registry.getNodeList({ onlyAvailable: true, withServices: true }) as unknown as { id: string; services?: { name: string }[] }[]).some(
      (x) => x.id === peer && !!x.services?.some((s) => s.name === 'auth'),
    );
  const joined = await eventually(async () => seesPeer(nodeA, 'auth-b') && seesPeer(nodeB, 'auth-a'), { timeoutMs: 20_000 });
  if (!joined) throw new Error('the two nodes did not discover each other over NATS');
});
test.after.always(async () => {
  await Promise.all([nodeA?.kernel.close(), nodeB?.kernel.close()]);
  root?.remove();
  await db?.drop();
});

/** Tokens the node's gateway has cached (entries only leave it on access or by an invalidation event). */
function cachedSessions(node: AuthNode): number {
  const service = node.kernel.broker.getLocalService('api') as unknown as { identities: { size: number } };
  return service.identities.size;
}

test.serial('two nodes starting at once on an empty database create exactly one entity and owner', async (t) => {
  t.deepEqual(await nodeA.rows<{ email: string; role: string }>('SELECT email, role FROM users'), [{ email: OWNER_EMAIL, role: 'owner' }]);
  t.is((await nodeA.rows('SELECT id FROM entities')).length, 1);
});

test.serial('logout on node A: node B drops its cached session by event and refuses the token', async (t) => {
  const token = await login(nodeA.url, OWNER_EMAIL, OWNER_PASSWORD);
  t.is((await api(nodeB.url, '/api/v1/auth/me', { token })).status, 200);
  t.is(cachedSessions(nodeB), 1, 'node B verified the token once and cached it');

  const started = Date.now();
  t.is((await api(nodeA.url, '/api/v1/auth/logout', { method: 'POST', token })).status, 204);
  // no request reaches node B meanwhile: only the invalidation event can empty its cache
  const dropped = await eventually(async () => cachedSessions(nodeB) === 0, { timeoutMs: 5_000, intervalMs: 10 });
  t.true(dropped, 'the invalidation event reached node B over NATS');
  t.log(`node B dropped the session ${Date.now() - started} ms after the logout request started`);
  t.is((await api(nodeB.url, '/api/v1/auth/me', { token })).status, 401);
});

test.serial('a revocation whose event is lost still takes effect on node B (cached for at most a second)', async (t) => {
  const token = await login(nodeA.url, OWNER_EMAIL, OWNER_PASSWORD);
  t.is((await api(nodeB.url, '/api/v1/auth/me', { token })).status, 200);
  // revoke behind the package's back: no event is sent
  await nodeA.kernel.stores!.db.query('UPDATE auth_tokens SET revoked_at = now() WHERE revoked_at IS NULL');
  const started = Date.now();
  const refused = await eventually(async () => (await api(nodeB.url, '/api/v1/auth/me', { token })).status === 401, { timeoutMs: 5_000, intervalMs: 50 });
  t.true(refused);
  t.log(`node B refused the token ${Date.now() - started} ms after the silent revocation`);
});
