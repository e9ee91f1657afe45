import test from 'ava';
import { api } from './helpers/kernel.ts';
import { login, OWNER_EMAIL, OWNER_PASSWORD, startAuth, type AuthSetup } from './auth-support.ts';

let setup: AuthSetup;
let url: string;
const MEMBER = { email: 'member@limits.test', password: 'member password 42' };

test.before(async () => {
  setup = await startAuth('auth_rate_limit', { LOGIN_FAILURES_PER_ACCOUNT: '3', LOGIN_FAILURES_PER_ADDRESS: '6', LOGIN_FAILURE_WINDOW_SECONDS: '900' });
  url = setup.node.url;
  const owner = await login(url, OWNER_EMAIL, OWNER_PASSWORD);
  const res = await api(url, '/api/v1/users', { method: 'POST', token: owner, json: { ...MEMBER, role: 'member' } });
  if (res.status !== 201) throw new Error(res.text);
});
test.after.always(async () => {
  await setup?.close();
});

/** A login from a given client address (the gateway trusts X-Forwarded-For from a loopback peer). */
const attempt = (email: string, password: string, address: string) =>
  api(url, '/api/v1/auth/login', { method: 'POST', json: { email, password }, headers: { 'X-Forwarded-For': address } });

function assertLimited(t: any, res: Awaited<ReturnType<typeof attempt>>) {
  t.is(res.status, 429, res.text);
  t.is(res.body.code, 'RATE_LIMITED');
  const retryAfter = Number(res.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 900, `Retry-After ${retryAfter}`);
  t.is(res.body.retry_after, retryAfter);
}

test.serial('per account: after 3 failures the account gets 429 with Retry-After, even with the right password and from another address', async (t) => {
  for (let i = 0; i < 3; i++) t.is((await attempt(OWNER_EMAIL, 'wrong password ' + i, '10.0.0.1')).status, 401);
  assertLimited(t, await attempt(OWNER_EMAIL, OWNER_PASSWORD, '10.0.0.1'));
  assertLimited(t, await attempt(OWNER_EMAIL, OWNER_PASSWORD, '10.0.0.2'));
  const [row] = await setup.node.rows<{ last_login_at: Date | null }>('SELECT last_login_at FROM users WHERE email = :e', { e: OWNER_EMAIL });
  const before = row.last_login_at?.valueOf();
  t.is((await attempt(OWNER_EMAIL, OWNER_PASSWORD, '10.0.0.3')).status, 429);
  const [after] = await setup.node.rows<{ last_login_at: Date | null }>('SELECT last_login_at FROM users WHERE email = :e', { e: OWNER_EMAIL });
  t.is(after.last_login_at?.valueOf(), before, 'a refused login changes nothing');
});

test.serial('an unknown email is limited exactly like a real one (a 429 does not reveal which emails exist)', async (t) => {
  for (let i = 0; i < 3; i++) t.is((await attempt('ghost@limits.test', 'wrong password ' + i, '10.0.0.4')).status, 401);
  assertLimited(t, await attempt('ghost@limits.test', 'wrong password x', '10.0.0.4'));
});

test.serial('a successful login clears the account failures', async (t) => {
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 2; i++) t.is((await attempt(MEMBER.email, 'wrong password ' + i, `10.0.1.${round}`)).status, 401);
    t.is((await attempt(MEMBER.email, MEMBER.password, `10.0.1.${round}`)).status, 200);
  }
});

test.serial('per address: after 6 failures from one address every login from it gets 429; other addresses are unaffected', async (t) => {
  for (let i = 0; i < 6; i++) t.is((await attempt(`nobody${i}@limits.test`, 'some wrong password', '10.0.2.1')).status, 401);
  assertLimited(t, await attempt('nobody-else@limits.test', 'some wrong password', '10.0.2.1'));
  assertLimited(t, await attempt(MEMBER.email, MEMBER.password, '10.0.2.1'));
  t.is((await attempt(MEMBER.email, MEMBER.password, '10.0.2.2')).status, 200);
});
