import test from 'ava';
import {
  INITIAL_STATUSES,
  RESOLVED_STATUSES,
  RESUME_ON_COMMENT,
  RETRY_MOVE,
  TASK_STATUSES,
  TRANSITIONS,
  UNANSWERED_STATUSES,
  allowedTargets,
  checkMove,
  isTaskStatus,
  resumeTargetOnComment,
  transitionList,
  type TaskStatus,
} from '../plugins/tasks/domain/state-machine.ts';
import { BOARD_COLUMNS, columnOf, statusesWithoutExactlyOneColumn } from '../plugins/tasks/domain/board-columns.ts';
import { taskConstants } from '../plugins/tasks/domain/constants.ts';

/** The expected machine, written out independently of the table, pair by pair. */
const LEGAL = new Set([
  'created>proposed', 'created>pending', 'created>scheduled', 'created>in_progress', 'created>on_hold', 'created>blocked', 'created>cancelled',
  'proposed>pending', 'proposed>scheduled', 'proposed>in_progress', 'proposed>on_hold', 'proposed>cancelled',
  'pending>scheduled', 'pending>in_progress', 'pending>on_hold', 'pending>blocked', 'pending>cancelled',
  'scheduled>pending', 'scheduled>in_progress', 'scheduled>on_hold', 'scheduled>blocked', 'scheduled>cancelled',
  'in_progress>waiting_on_customer', 'in_progress>on_hold', 'in_progress>blocked', 'in_progress>pending', 'in_progress>completed', 'in_progress>failed', 'in_progress>cancelled',
  'waiting_on_customer>in_progress', 'waiting_on_customer>on_hold', 'waiting_on_customer>completed', 'waiting_on_customer>cancelled',
  'on_hold>in_progress', 'on_hold>pending', 'on_hold>cancelled',
  'blocked>in_progress', 'blocked>pending', 'blocked>on_hold', 'blocked>cancelled',
  'failed>pending', 'failed>cancelled',
  'completed>pending',
  'cancelled>pending',
]);

test('the spec names exactly eleven statuses', (t) => {
  t.deepEqual([...TASK_STATUSES].sort(), ['blocked', 'cancelled', 'completed', 'created', 'failed', 'in_progress', 'on_hold', 'pending', 'proposed', 'scheduled', 'waiting_on_customer']);
  t.true(isTaskStatus('in_progress'));
  t.false(isTaskStatus('done'));
  t.false(isTaskStatus(undefined));
  t.false(isTaskStatus('toString'));
});

test('every one of the 121 (from, to) pairs is legal exactly when the expected machine says so', (t) => {
  let checked = 0;
  for (const from of TASK_STATUSES) {
    for (const to of TASK_STATUSES) {
      const result = checkMove(from, to);
      t.is(result.ok, LEGAL.has(`${from}>${to}`), `${from} -> ${to}`);
      if (!result.ok) t.deepEqual(result.allowed, allowedTargets(from), `allowed targets named for ${from}`);
      checked++;
    }
  }
  t.is(checked, 121);
  t.is(transitionList().length, LEGAL.size);
});

test('staying in the same status is never a move', (t) => {
  for (const s of TASK_STATUSES) t.false(checkMove(s, s).ok, s);
});

test('an unknown target is refused with the allowed targets listed', (t) => {
  const result = checkMove('in_progress', 'done');
  t.false(result.ok);
  if (!result.ok) t.deepEqual(result.allowed, ['pending', 'waiting_on_customer', 'on_hold', 'blocked', 'completed', 'cancelled', 'failed']);
  t.false(checkMove('created', '__proto__').ok);
  t.false(checkMove('created', 'constructor').ok);
});

test('a legal move names its transition', (t) => {
  const result = checkMove('failed', 'pending');
  t.true(result.ok);
  if (result.ok) t.is(result.transition, 'retry');
  t.like(checkMove('waiting_on_customer', 'in_progress'), { ok: true, transition: 'resume' });
});

test('every status can be left, and every status except the initial ones can be reached', (t) => {
  for (const s of TASK_STATUSES) t.true(allowedTargets(s).length > 0, `${s} is a dead end`);
  const reachable = new Set(Object.values(TRANSITIONS).flatMap((row) => Object.keys(row)));
  for (const s of TASK_STATUSES) if (s !== 'created') t.true(reachable.has(s), `${s} is unreachable`);
});

test('the special moves of the spec are moves of the table', (t) => {
  for (const [from, to] of Object.entries(RESUME_ON_COMMENT) as [TaskStatus, TaskStatus][]) t.true(checkMove(from, to).ok, `resume ${from}`);
  t.true(checkMove(RETRY_MOVE.from, RETRY_MOVE.to).ok);
  t.is(resumeTargetOnComment('waiting_on_customer'), 'in_progress');
  t.is(resumeTargetOnComment('on_hold'), 'in_progress');
  for (const s of TASK_STATUSES) if (!(s in RESUME_ON_COMMENT)) t.is(resumeTargetOnComment(s), null, s);
  t.true(checkMove('in_progress', 'completed').ok);
  t.true(checkMove('waiting_on_customer', 'completed').ok);
});

test('initial, resolved and unanswered statuses are real statuses', (t) => {
  for (const s of [...INITIAL_STATUSES, ...RESOLVED_STATUSES, ...UNANSWERED_STATUSES]) t.true(isTaskStatus(s), s);
  t.true(INITIAL_STATUSES.includes('created'));
  t.false(INITIAL_STATUSES.includes('completed'));
});

test('each status is in exactly one of the five board columns', (t) => {
  t.deepEqual(statusesWithoutExactlyOneColumn(), []);
  t.deepEqual(BOARD_COLUMNS.map((c) => c.title), ['To Do', 'Scheduled', 'In Progress', 'Needs Attention', 'Done']);
  t.is(columnOf('failed'), 'needs_attention');
  t.is(columnOf('proposed'), 'todo');
  t.is(columnOf('cancelled'), 'done');
});

test('the constants payload carries the whole machine', (t) => {
  const c = taskConstants();
  t.is(c.statuses.length, 11);
  t.is(c.transitions.length, LEGAL.size);
  for (const tr of c.transitions) t.true(LEGAL.has(`${tr.from}>${tr.to}`));
  t.deepEqual(c.allowed_targets.failed, ['pending', 'cancelled']);
  t.deepEqual(c.priorities.map((p) => p.value), [1, 2, 3, 4, 5]);
  t.is(c.board_columns.length, 5);
  t.deepEqual(c.retry, { from: 'failed', to: 'pending' });
  t.notThrows(() => JSON.parse(JSON.stringify(c)));
});
