import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../kernel/errors/catalogue.ts';
import { toProblem } from '../kernel/errors/problem.ts';

const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'errors.md'), 'utf8').split('## Package codes')[0];

test('every code is unique, named after its key, and documented', (t) => {
  const codes = Object.entries(ERRORS).map(([key, factory]) => {
    t.is(factory.definition.code, key);
    t.true(doc.includes(`id="${key.toLowerCase()}"`), `${key} is missing from docs/errors.md`);
    return key;
  });
  t.is(new Set(codes).size, codes.length);
  const documented = [...doc.matchAll(/id="([a-z_]+)"/g)].map((m) => m[1].toUpperCase());
  t.deepEqual(documented.filter((c) => !(c in ERRORS)), [], 'docs/errors.md lists a code the catalogue does not have');
});

test('a catalogue error maps to its status and code, with data as extension members', (t) => {
  const p = toProblem(ERRORS.CONFLICT('Version 3 is stale', { current_version: 4 }), 'rid');
  t.like(p.body, { status: 409, code: 'CONFLICT', detail: 'Version 3 is stale', current_version: 4, request_id: 'rid', type: '/api/errors#conflict' });
});

test('an unknown error is a bare 500', (t) => {
  const p = toProblem(new TypeError('cannot read x of undefined at /srv/app.ts:1'));
  t.is(p.status, 500);
  t.is(p.body.code, 'INTERNAL_ERROR');
  t.false(JSON.stringify(p.body).includes('/srv/app.ts'));
});

test('a 5xx of a package keeps no data fields that could leak', (t) => {
  const p = toProblem(Object.assign(new Error('db password wrong'), { code: 500, type: 'X', data: { password: 'p' } }));
  t.false('password' in p.body);
});
