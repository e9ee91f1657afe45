import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connectDatabase } from '../kernel/db/connect.ts';
import { runMigrations } from '../kernel/db/migrations.ts';
import { ensureFirstOwner } from '../plugins/auth/lib/first-owner.ts';
import { verifyPassword } from '../plugins/auth/lib/password.ts';
import { api } from './helpers/kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { AUTH_PACKAGE, authOnlyRoot } from './auth-support.ts';

const ROOT = resolve(import.meta.dirname, '..');
const dbs: TestDatabase[] = [];
const cleanups: (() => void)[] = [];
test.after.always(async () => {
  cleanups.forEach((c) => c());
  await Promise.all(dbs.map((d) => d.drop()));
});

async function freshDatabase(label: string): Promise<TestDatabase> {
  const db = await createTestDatabase(label);
  dbs.push(db);
  return db;
}

/** Starts test/auth-node.ts as a process; resolves once it serves, with everything it printed so far and later. */
async function runNode(env: Record<string, string>): Promise<{ url: string; output: () => string; stop: () => Promise<number | null> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-auth-node-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/auth-node.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      API_HOST: '127.0.0.1', API_PORT: '0', WEB_PORT: '0', DATA_DIR: dataDir, NODE_ENV: 'test', HOT_RELOAD: 'false', RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'info', REDIS_URL: '', TRANSPORTER: '', ADMIN_EMAIL: '', ADMIN_PASSWORD: '', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  // 'close', not 'exit': output still in the pipes arrives before it
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    const onData = (d: Buffer) => {
      out += d;
      const ready = /READY (http:\/\/\S+)/.exec(out);
      if (ready) done(ready[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => fail(new Error(`the node exited (${code}) before serving:\n${out}`)));
    setTimeout(() => fail(new Error(`the node did not serve within 60 s:\n${out}`)), 60_000).unref();
  });
  return {
    url,
    output: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

test('without ADMIN_PASSWORD the first start generates a strong password and prints it once, never again', async (t) => {
  const db = await freshDatabase('auth_first_start');
  const root = authOnlyRoot();
  cleanups.push(root.remove);
  const env = { DATABASE_URL: db.url, AUTH_TEST_ROOTS: root.root };

  const first = await runNode(env);
  // logs are written asynchronously: wait for the notice before stopping the process
  await eventually(async () => first.output().includes('FIRST START'), { timeoutMs: 10_000, intervalMs: 50 });
  await first.stop();
  const printed = first.output();
  const match = /password: ([A-Za-z0-9_-]{24})/.exec(printed);
  t.truthy(match, printed);
  const password = match![1];
  t.is(occurrences(printed, password), 1, 'the password appears exactly once');
  t.is(occurrences(printed, 'FIRST START'), 1);
  t.true(printed.includes('admin@localhost'));

  const second = await runNode(env);
  try {
    t.is(occurrences(second.output(), 'FIRST START'), 0, 'a second start prints nothing about the password');
    t.false(second.output().includes(password));
    const login = await api(second.url, '/api/v1/auth/login', { method: 'POST', json: { email: 'admin@localhost', password } });
    t.is(login.status, 200, login.text);
    const me = await api(second.url, '/api/v1/auth/me', { token: login.body.access_token });
    t.like(me.body, { email: 'admin@localhost', role: 'owner' });
  } finally {
    await second.stop();
  }
  t.false(second.output().includes(password), 'not even at shutdown');
});

test('concurrent first starts on one database create exactly one owner', async (t) => {
  const db = await freshDatabase('auth_first_race');
  const sequelize = await connectDatabase({ url: db.url, pool: { max: 10 } });
  try {
    await runMigrations(sequelize, { name: '@wao/auth', dir: join(AUTH_PACKAGE, 'migrations') });
    const results = await Promise.all(Array.from({ length: 5 }, () => ensureFirstOwner(sequelize, { email: 'Boss@Example.test', password: '' })));
    t.is(results.filter((r) => r.created).length, 1);
    const winner = results.find((r) => r.created)!;
    t.is(winner.email, 'boss@example.test');
    const [users] = await sequelize.query('SELECT email, role, password_hash FROM users');
    t.is(users.length, 1);
    const [entities] = await sequelize.query('SELECT id FROM entities');
    t.is(entities.length, 1);
    t.true(await verifyPassword(winner.generatedPassword!, (users[0] as { password_hash: string }).password_hash));
    // later starts find the owner and create nothing
    t.deepEqual(await ensureFirstOwner(sequelize, { email: 'other@example.test', password: 'some long password' }), { created: false });
  } finally {
    await sequelize.close();
  }
});

test('an ADMIN_PASSWORD outside the password rules stops the first start with a clear message', async (t) => {
  const db = await freshDatabase('auth_first_short');
  const sequelize = await connectDatabase({ url: db.url, pool: { max: 4 } });
  try {
    await runMigrations(sequelize, { name: '@wao/auth', dir: join(AUTH_PACKAGE, 'migrations') });
    await t.throwsAsync(ensureFirstOwner(sequelize, { email: '', password: 'short' }), { message: /ADMIN_PASSWORD must be 12 to 256 characters/ });
    await t.throwsAsync(ensureFirstOwner(sequelize, { email: 'not an email', password: 'long enough password' }), { message: /ADMIN_EMAIL/ });
    const [users] = await sequelize.query('SELECT id FROM users');
    t.is(users.length, 0);
  } finally {
    await sequelize.close();
  }
});
