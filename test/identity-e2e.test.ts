import test from 'ava';
import { useKernel, api } from './helpers/kernel.ts';
import { linkedPackageRoot } from './helpers/packages.ts';

// the real identity package with the packages that rely on it, as `npm start` loads them
const pkgs = linkedPackageRoot(['plugins/auth', 'plugins/workspaces', 'plugins/workers', 'plugins/usage']);
const ADMIN = { email: 'owner@acme.test', password: 'correct horse battery staple' };
const fixture = useKernel(test, { label: 'identity_e2e', roots: [pkgs.root], env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, SIGNUP_ENABLED: 'true' } });
test.after.always(() => pkgs.remove());

const call = (path: string, init?: Parameters<typeof api>[2]) => api(fixture.kernel.apiUrl, path, init);
const login = async (email: string, password: string) => (await call('/api/v1/auth/login', { method: 'POST', json: { email, password } })).body.access_token as string;

test('every package loads', (t) => {
  t.deepEqual(fixture.kernel.loader.list().filter((p) => p.state !== 'loaded'), []);
});

test('an owner logs in, creates a workspace; another entity sees none of it', async (t) => {
  const owner = await login(ADMIN.email, ADMIN.password);
  t.truthy(owner);
  const me = await call('/api/v1/auth/me', { token: owner });
  t.like(me.body, { email: ADMIN.email, role: 'owner' });
  t.false(JSON.stringify(me.body).includes('password'));

  const created = await call('/api/v1/workspaces', { method: 'POST', token: owner, json: { name: 'Support', description: 'Inbox triage', category: 'ops' } });
  t.is(created.status, 201, created.text);
  const id = created.body.id;

  const reg = await call('/api/v1/auth/register', { method: 'POST', json: { entity_name: 'Globex', email: 'boss@globex.test', password: 'another long passphrase' } });
  t.true(reg.status === 201 || reg.status === 200, reg.text);
  const other = reg.body.access_token as string;
  t.not((await call('/api/v1/entities/me', { token: other })).body.id, (await call('/api/v1/entities/me', { token: owner })).body.id);

  t.is((await call('/api/v1/workspaces', { token: other })).body.total, 0);
  for (const [method, path, json] of [
    ['GET', `/api/v1/workspaces/${id}`, undefined],
    ['PUT', `/api/v1/workspaces/${id}`, { name: 'Stolen' }],
    ['DELETE', `/api/v1/workspaces/${id}`, undefined],
    ['GET', `/api/v1/workspaces/${id}/operating-model`, undefined],
    ['GET', `/api/v1/workspaces/${id}/governance`, undefined],
    ['GET', `/api/v1/workspaces/${id}/activity`, undefined],
    ['GET', `/api/v1/workspaces/${id}/capabilities`, undefined],
  ] as const) {
    const res = await call(path, { method, token: other, json });
    t.is(res.status, 404, `${method} ${path}: ${res.text}`);
  }
  t.is((await call(`/api/v1/workspaces/${id}`, { token: owner })).body.name, 'Support', 'nothing changed');
});

test('after logout the token is refused; the usage summary and workers answer the owner', async (t) => {
  const owner = await login(ADMIN.email, ADMIN.password);
  t.is((await call('/api/v1/usage/summary', { token: owner })).status, 200);
  t.is((await call('/api/v1/workers', { token: owner })).status, 200);
  t.is((await call('/api/v1/auth/logout', { method: 'POST', token: owner })).status, 204);
  const after = await call('/api/v1/auth/me', { token: owner });
  t.is(after.status, 401);
  t.is(after.headers.get('www-authenticate'), 'Bearer');
});
