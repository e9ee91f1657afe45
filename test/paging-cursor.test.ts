import test from 'ava';
import { QueryTypes, Sequelize } from 'sequelize';
import { afterCursor, cursorPage, decodeCursor, defineKeyset, encodeCursor, keysetPage, type KeyColumn, type Keyset, type RowsOf } from '../kernel/tenancy/cursor.ts';
import { semanticProblems } from '../kernel/openapi/document-checks.ts';
import { PAGING_PARAMS } from '../kernel/tenancy/paging.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';

let db: TestDatabase;
let client: Sequelize;

const ROWS = 61;
// timestamps a microsecond apart: a key rounded to milliseconds (a JS Date) would skip or repeat rows
const STAMPS = ['2024-01-01T00:00:00.000001Z', '2024-01-01T00:00:00.000002Z', '2024-01-01T00:00:00.000003Z', '2030-06-15T12:30:00Z'];
const WORDS = ['alpha', 'Beta', 'beta', 'gamma', 'é', ''];

test.before(async () => {
  db = await createTestDatabase('paging_cursor');
  client = new Sequelize(db.url, { dialect: 'postgres', logging: false });
  await client.query('CREATE TABLE k (id uuid PRIMARY KEY, grp int NOT NULL, a timestamptz NOT NULL, b smallint NOT NULL, c text NOT NULL, d timestamptz)');
  for (let i = 0; i < ROWS; i++) {
    const id = `00000000-0000-7000-8000-${String(i * 7919 % 1000).padStart(12, '0')}`;
    await client.query('INSERT INTO k VALUES ($1, $2, $3, $4, $5, $6)', { bind: [id, i % 2, STAMPS[i % STAMPS.length], (i % 3) + 1, WORDS[i % WORDS.length], i % 3 === 0 ? null : STAMPS[(i * 5) % STAMPS.length]] });
  }
});
test.after.always(async () => {
  await client?.close();
  await db?.drop();
});

const rowsOf: RowsOf = (text, bind) => client.query(text, { bind, type: QueryTypes.SELECT });
const select = <T extends object>(text: string, bind: unknown[] = []) => client.query<T>(text, { bind, type: QueryTypes.SELECT });
const col = (expr: string, type: KeyColumn['type'], descending: boolean, nullable = false): KeyColumn => ({ expr, type, descending, nullable });

const KEYSETS: Keyset[] = [
  defineKeyset('a-desc', [col('a', 'timestamptz', true), col('id', 'uuid', true)]),
  defineKeyset('a-asc', [col('a', 'timestamptz', false), col('id', 'uuid', false)]),
  defineKeyset('b-asc-a-desc', [col('b', 'smallint', false), col('a', 'timestamptz', true), col('id', 'uuid', true)]),
  defineKeyset('d-nullable-asc', [col('d', 'timestamptz', false, true), col('id', 'uuid', false)]),
  defineKeyset('d-nullable-desc-c', [col('d', 'timestamptz', true, true), col('c', 'text', false), col('id', 'uuid', true)]),
  defineKeyset('c-desc-b', [col('c', 'text', true), col('b', 'smallint', true), col('id', 'uuid', false)]),
];

for (const keyset of KEYSETS) {
  test(`walking ${keyset.name} by cursor gives every row once, in ORDER BY order, with the total of the list`, async (t) => {
    const order = keyset.columns.map((c) => `${c.expr} ${c.descending ? 'DESC' : 'ASC'}${c.nullable ? ' NULLS LAST' : ''}`).join(', ');
    const expected = (await select<{ id: string }>(`SELECT id FROM k WHERE grp = $1 ORDER BY ${order}`, [1])).map((r) => r.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = { limit: 4, offset: 0, after: afterCursor(keyset, { cursor }) };
      const { rows, total } = await keysetPage<{ id: string }>(rowsOf, { columns: 'id', from: 'k', where: 'grp = $1', bind: [1], keyset, page });
      t.is(total, expected.length);
      const result = cursorPage(keyset, rows, page);
      t.false('page_key' in (result.items[0] ?? {}), 'the key column is taken off');
      seen.push(...result.items.map((r) => r.id));
      if (!result.next_cursor) break;
      cursor = result.next_cursor;
    }
    t.deepEqual(seen, expected);
  });
}

test('a cursor page past the end is empty, with the total counted again', async (t) => {
  const keyset = KEYSETS[0];
  const [{ key: last }] = await select<{ key: [string, string] }>('SELECT json_build_array(a, id) AS key FROM k WHERE grp = 0 ORDER BY a ASC, id ASC LIMIT 1');
  const page = { limit: 10, offset: 0, after: decodeCursor(keyset, encodeCursor(keyset, last)) };
  const { rows, total } = await keysetPage(rowsOf, { columns: 'id', from: 'k', where: 'grp = $1', bind: [0], keyset, page });
  t.deepEqual(rows, []);
  t.is(total, Math.ceil(ROWS / 2));
  t.is(cursorPage(keyset, rows, page).next_cursor, null);
});

test('an offset page carries its offset and a next_cursor; a cursor page carries no offset', async (t) => {
  const keyset = KEYSETS[0];
  const first = { limit: 5, offset: 3 };
  const { rows } = await keysetPage<{ id: string }>(rowsOf, { columns: 'id', from: 'k', where: 'grp = $1', bind: [0], keyset, page: first });
  const page = cursorPage(keyset, rows, first);
  t.is(page.offset, 3);
  t.truthy(page.next_cursor);
  const next = { limit: 5, offset: 0, after: afterCursor(keyset, { cursor: page.next_cursor! }) };
  const more = cursorPage(keyset, (await keysetPage(rowsOf, { columns: 'id', from: 'k', where: 'grp = $1', bind: [0], keyset, page: next })).rows, next);
  t.false('offset' in more);
});

const fieldsOf = (err: unknown) => ((err as { data?: { field: string }[] }).data ?? []).map((e) => e.field);

test('a forged, foreign or mangled cursor is a 422 naming cursor, before any SQL', (t) => {
  const [keyset, other] = KEYSETS;
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const bad = [
    'not base64!',
    '%%%',
    Buffer.from('{not json').toString('base64url'),
    b64({ a: 1 }),
    b64(['a-desc']),
    b64(['a-desc', 'x']),
    encodeCursor(other, ['2024-01-01T00:00:00Z', '00000000-0000-7000-8000-000000000001']),
    b64(['a-desc', ['2024-01-01T00:00:00Z']]),
    b64(['a-desc', ['2024-02-30T00:00:00Z', '00000000-0000-7000-8000-000000000001']]),
    b64(['a-desc', ['2024-01-01T24:00:00Z', '00000000-0000-7000-8000-000000000001']]),
    b64(['a-desc', ['1e99', '00000000-0000-7000-8000-000000000001']]),
    b64(['a-desc', [1e99, '00000000-0000-7000-8000-000000000001']]),
    b64(['a-desc', ['0000-01-01T00:00:00Z', '00000000-0000-7000-8000-000000000001']]),
    b64(['a-desc', ['2024-01-01T00:00:00+99:00', '00000000-0000-7000-8000-000000000001']]),
    b64(['a-desc', [null, '00000000-0000-7000-8000-000000000001']]),
    b64(['a-desc', ['2024-01-01T00:00:00Z', "'; DROP TABLE k;--"]]),
    b64(['a-desc', ['2024-01-01T00:00:00Z', { id: 1 }]]),
  ];
  for (const cursor of bad) {
    const err = t.throws(() => decodeCursor(keyset, cursor), undefined, cursor);
    t.is((err as { code?: number }).code, 422, cursor);
    t.deepEqual(fieldsOf(err), ['cursor'], cursor);
  }
  const smallint = KEYSETS[2];
  for (const b of [40_000, 1.5, '1']) {
    const err = t.throws(() => decodeCursor(smallint, b64(['b-asc-a-desc', [b, '2024-01-01T00:00:00Z', '00000000-0000-7000-8000-000000000001']])));
    t.deepEqual(fieldsOf(err), ['cursor']);
  }
  const text = KEYSETS[5];
  const err = t.throws(() => decodeCursor(text, b64(['c-desc-b', ['a\u0000b', 1, '00000000-0000-7000-8000-000000000001']])));
  t.deepEqual(fieldsOf(err), ['cursor']);
  t.deepEqual(decodeCursor(KEYSETS[3], b64(['d-nullable-asc', [null, '00000000-0000-7000-8000-000000000001']])), [null, '00000000-0000-7000-8000-000000000001'], 'a null of a nullable column is a key');
});

test('cursor with an offset above 0 is a 422 naming offset', (t) => {
  const keyset = KEYSETS[0];
  const cursor = encodeCursor(keyset, ['2024-01-01T00:00:00Z', '00000000-0000-7000-8000-000000000001']);
  const err = t.throws(() => afterCursor(keyset, { cursor, offset: 5 }));
  t.deepEqual(fieldsOf(err), ['offset']);
  t.truthy(afterCursor(keyset, { cursor, offset: 0 }));
  t.is(afterCursor(keyset, { offset: 5 }), undefined);
});

test('the document check refuses a numeric query parameter without both bounds, and the paging declaration has them', (t) => {
  const doc = (schema: Record<string, unknown>) => ({
    paths: { '/x': { get: { operationId: 'x', parameters: [{ name: 'n', in: 'query', schema }], responses: {} } } },
  });
  t.deepEqual(semanticProblems(doc({ type: 'integer', minimum: 0, maximum: 5 })), []);
  t.deepEqual(semanticProblems(doc({ type: 'string' })), []);
  t.is(semanticProblems(doc({ type: 'integer', minimum: 0 })).length, 1);
  t.is(semanticProblems(doc({ type: 'number', maximum: 1 })).length, 1);
  t.is(semanticProblems(doc({ type: 'array', items: { type: 'integer' } })).length, 1);
  for (const rule of Object.values(PAGING_PARAMS)) t.true(Number.isSafeInteger(rule.max) && Number.isSafeInteger(rule.min));
});
