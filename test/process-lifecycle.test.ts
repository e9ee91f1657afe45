import test from 'ava';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { spawnKernel, type KernelProcess } from './helpers/process.ts';
import { createTestDatabase } from './helpers/pg.ts';

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const procs: KernelProcess[] = [];
const drops: (() => Promise<void>)[] = [];

test.after.always(async () => {
  for (const p of procs) p.cleanup();
  for (const d of drops) await d();
});

test('SIGTERM lets an in-flight request finish, then the process exits 0', async (t) => {
  const db = await createTestDatabase('lifecycle');
  drops.push(db.drop);
  const k = await spawnKernel({ DATABASE_URL: db.url, CAPABILITY_PATHS: FIXTURES, SHUTDOWN_GRACE_SECONDS: '20' });
  procs.push(k);
  t.true(await k.waitReady(), k.output());
  const inFlight = fetch(`${k.apiUrl}/api/v1/greeter/slow?ms=2000`, { headers: { Authorization: 'Bearer owner-token' } });
  await new Promise((r) => setTimeout(r, 300));
  k.kill('SIGTERM');
  const res = await inFlight;
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { slept: 2000, version: 1 });
  t.is(await k.exited, 0, k.output());
});

for (const [name, env, pattern] of [
  ['a CIDR suffix on the network prefix', { SERVICE_DOCKER_NETWORK_PREFIX: '172.30.0.0/24' }, /SERVICE_DOCKER_NETWORK_PREFIX=.*without a CIDR suffix/],
  ['four octets', { SERVICE_DOCKER_NETWORK_PREFIX: '172.30.0.1' }, /SERVICE_DOCKER_NETWORK_PREFIX=.*three decimal octets/],
  ['a port that is not a number', { API_PORT: 'eighty' }, /API_PORT="eighty" must be an integer/],
  ['an unknown role', { ROLES: 'api,chef' }, /ROLES=.*unknown item\(s\) chef/],
  ['a transporter that is not NATS', { TRANSPORTER: 'redis://127.0.0.1:6379' }, /TRANSPORTER=.*nats:\/\//],
] as const) {
  test(`invalid configuration stops start-up naming the variable: ${name}`, (t) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'kernel/main.ts'], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
    t.is(r.status, 78, r.stderr);
    t.regex(r.stderr, /Invalid configuration/);
    t.regex(r.stderr, pattern);
  });
}

test('the preflight names the Node version it needs on an older Node', (t) => {
  const old = spawnSync('/usr/bin/node', ['kernel/preflight.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (old.error) return t.fail(`/usr/bin/node could not run: ${old.error.message}`);
  const major = Number(spawnSync('/usr/bin/node', ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout);
  if (major >= 24) {
    t.is(old.status, 0);
  } else {
    t.is(old.status, 1);
    t.regex(old.stderr, /needs Node\.js 24/);
  }
  t.is(spawnSync(process.execPath, ['kernel/preflight.mjs'], { cwd: ROOT }).status, 0);
});
