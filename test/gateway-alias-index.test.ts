import test from 'ava';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AliasIndex, type IndexedAlias } from '../kernel/gateway/alias-index.ts';

/** moleculer-web's own Alias class, so the index is checked against the regexps it really builds */
const Alias = createRequire(import.meta.url)('moleculer-web/src/alias.js') as new (service: unknown, route: unknown, opts: string, action: string) => IndexedAlias;
const route = { path: '/api/v1', opts: {} };

/** every route of the interface contract (the project's own list), plus shapes that stress the prefix rules */
const specRoutes = readFileSync(join(import.meta.dirname, 'fixtures', 'api-routes.txt'), 'utf8')
  .split('\n')
  .filter((line) => /^[A-Z]+ \//.test(line));
const extra = ['GET /Tasks/Stats', 'GET /tasks/:id', 'GET /files/*rest', 'POST /x/:a/y/:b/z', 'GET /', '* /any/thing', 'GET /a.b~c/d-e'];
const aliases = [...extra, ...specRoutes].map((spec, i) => new Alias(null, route, spec, `svc.action${i}`));

function scan(url: string, method: string): IndexedAlias | false {
  for (const alias of aliases) if (alias.isMethod(method) && alias.match(url)) return alias;
  return false;
}

const probes = [
  '/api/v1/tasks/stats', '/api/v1/TASKS/STATS', '/api/v1/tasks/123', '/api/v1/tasks', '/api/v1/tasks/', '/api/v1/files/a/b/c',
  '/api/v1/x/1/y/2/z', '/api/v1', '/api/v1/', '/api/v1/any/thing', '/api/v1/a.b~c/d-e', '/api/v1/A.B~C/D-E', '/api/v1/nothing',
  '/api/v1/ta%73ks/1', '//api/v1/tasks', '/api', '/', '/api/v1/workflows/webhook/abc', '/api/v1/workflows/runs/r1/cancel',
  '/api/v1/tas\u212As/1', ...specRoutes.map((r) => r.split(' ')[1].replace(/:[A-Za-z_]+/g, 'id-1')).map((p) => `/api/v1${p}`),
];

test('the index finds the alias moleculer-web scan finds, for every method and probe path', (t) => {
  const index = new AliasIndex<IndexedAlias>();
  let matched = 0;
  for (const url of probes) {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const found = index.resolve(aliases, url, method);
      const expected = scan(url, method);
      t.is(found ? found.alias : false, expected, `${method} ${url}`);
      if (expected) matched++;
    }
  }
  t.true(matched > specRoutes.length / 2, 'most probes match some alias');
});

test('the index follows moleculer-web replacing or growing its alias list', (t) => {
  const index = new AliasIndex<IndexedAlias>();
  const list = aliases.slice(0, 3);
  t.is(index.resolve(list, '/api/v1/workflows/webhook/abc', 'POST'), false);
  list.push(new Alias(null, route, 'POST /workflows/webhook/:token', 'workflows.webhook'));
  const found = index.resolve(list, '/api/v1/workflows/webhook/abc', 'POST');
  t.deepEqual(found && found.params, { token: 'abc' });
  t.is(index.resolve(list.slice(0, 3), '/api/v1/workflows/webhook/abc', 'POST'), false);
});
