import test from 'ava';
import { useTasksKernel } from './helpers/tasks-kernel.ts';

const fixture = useTasksKernel(test, 'tasks_import');
const owner = 'owner-token';

function importCsv(csv: string | Uint8Array, token = owner) {
  const form = new FormData();
  form.append('file', new Blob([typeof csv === 'string' ? csv : new Uint8Array(csv)], { type: 'text/csv' }), 'tasks.csv');
  return fixture.tk.call('/api/v1/tasks/import', { method: 'POST', token, body: form });
}

async function countIn(workspace: string): Promise<number> {
  return (await fixture.tk.call(`/api/v1/tasks?workspace=${workspace}`, { token: owner })).body.total;
}

test('a good CSV imports every row, with its columns, in one go', async (t) => {
  const ws = await fixture.tk.createWorkspace(owner, 'Imports');
  const category = (await fixture.tk.call('/api/v1/tasks/categories', { method: 'POST', token: owner, json: { name: 'Support' } })).body;
  const csv = [
    'Title,Priority,Status,Deadline,Category,Workspace_ID,Assignee,Description,Requester',
    `Reset password,1,pending,2030-05-01,support,${ws},user:u-member,"Customer says ""help"", twice",bob@example.com`,
    `"Multi-line
title",5,,,,${ws},agent:helper,,`,
    `Plain,,,,,${ws},,,`,
  ].join('\r\n');
  const res = await importCsv(csv);
  t.is(res.status, 201, res.text);
  t.is(res.body[0].imported, 3);
  t.is(await countIn(ws), 3);
  const first = (await fixture.tk.call(`/api/v1/tasks/${res.body[0].task_ids[0]}`, { token: owner })).body;
  t.like(first, { title: 'Reset password', priority: 1, status: 'pending', category_id: category.id, assignee: { type: 'user', id: 'u-member' }, description: 'Customer says "help", twice', requester: 'bob@example.com', deadline: '2030-05-01T00:00:00.000Z' });
  const second = (await fixture.tk.call(`/api/v1/tasks/${res.body[0].task_ids[1]}`, { token: owner })).body;
  t.is(second.title, 'Multi-line\ntitle');
  t.like(second.execution_record[0], { kind: 'dispatch', data: { agent_id: 'helper', state: 'dispatched' } }, 'an agent assigned by import is dispatched too');
  const history = (await fixture.tk.call(`/api/v1/tasks/${first.id}/history`, { token: owner })).body;
  t.is(history.items[0].action, 'created');
});

test('one bad row among good ones: 422 listing its row number and problems, nothing imported', async (t) => {
  const ws = await fixture.tk.createWorkspace(owner, 'Strict');
  const csv = [
    'title,priority,deadline,workspace_id,status',
    `good one,2,2030-01-01,${ws},`,
    `bad one,6,next week,${ws},done`,
    `good two,3,,${ws},`,
    `,1,,${ws},`,
  ].join('\n');
  const res = await importCsv(csv);
  t.is(res.status, 422, res.text);
  t.is(res.body.code, 'VALIDATION_FAILED');
  const fields = res.body.errors.map((e: { field: string }) => e.field);
  t.deepEqual(fields, ['rows[3].status', 'rows[3].priority', 'rows[3].deadline', 'rows[5].title']);
  t.regex(res.body.errors[1].message, /^Row 3: priority '6'/);
  t.is(await countIn(ws), 0, 'all rows or none');
});

test('references are checked per row: unknown category, another entity\'s workspace', async (t) => {
  const mine = await fixture.tk.createWorkspace(owner, 'Mine');
  const theirs = await fixture.tk.createWorkspace('other-token', 'Theirs');
  const res = await importCsv(['title,category,workspace_id', `a,,${mine}`, `b,Nope,${mine}`, `c,,${theirs}`].join('\n'));
  t.is(res.status, 422, res.text);
  t.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['rows[3].category', 'rows[4].workspace_id']);
  t.is(await countIn(mine), 0);
});

test('malformed files are refused precisely', async (t) => {
  const cases: [string | Uint8Array, string][] = [
    ['', 'file'],
    ['title\n', 'file'],
    ['title,colour\nx,red\n', 'header'],
    ['priority\n1\n', 'header'],
    ['title,priority\n"unclosed,1\n', 'rows[2]'],
    ['title,priority\na,1,extra\n', 'rows[2].fields'],
    [new Uint8Array([0x74, 0x69, 0x74, 0x6c, 0x65, 0x0a, 0xff, 0xfe, 0x0a]), 'file'],
  ];
  for (const [csv, field] of cases) {
    const res = await importCsv(csv);
    t.is(res.status, 422, `${JSON.stringify(csv)}: ${res.text}`);
    t.is(res.body.errors[0].field, field, JSON.stringify(csv));
  }
});

test('import needs a token', async (t) => {
  const anonymous = await fixture.tk.call('/api/v1/tasks/import', { method: 'POST', body: new FormData() });
  t.is(anonymous.status, 401);
});
