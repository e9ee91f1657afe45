import type { Context } from 'moleculer';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { entityOf, identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import type { SlaTargets } from '../domain/sla.ts';
import { invalid, type FieldProblem } from '../errors.ts';
import { iso } from '../db/task-row.ts';
import { created, dbOf, emitAfterCommit, type TasksAction } from '../service.ts';
import { deleteRow, getRow, insertRow, pageRows, updateRow, type CollectionTable, type Row } from './store.ts';

/** SLA policies: per priority, minutes to the first response and to resolution. */

const POLICIES: CollectionTable = { table: 'task_sla_policies', label: 'SLA policy', columns: ['name', 'description', 'targets'], jsonColumns: ['targets'] };
const PRIORITY_KEYS = ['1', '2', '3', '4', '5'] as const;
const MINUTES = { type: 'number', integer: true, min: 1, max: 525_600, optional: true } as const;
const TARGET = { type: 'object', strict: true, optional: true, minProps: 1, props: { response_minutes: MINUTES, resolution_minutes: MINUTES } } as const;
const FIELDS = {
  name: { type: 'string', trim: true, min: 1, max: 100 },
  description: { type: 'string', max: 2000, optional: true },
  targets: { type: 'object', strict: true, minProps: 1, props: Object.fromEntries(PRIORITY_KEYS.map((k) => [k, TARGET])), description: 'keyed by priority "1".."5"' },
} as const;

const TARGET_SCHEMA = { type: 'object', properties: { response_minutes: { type: 'integer' }, resolution_minutes: { type: 'integer' } } };
const POLICY_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    targets: { type: 'object', additionalProperties: TARGET_SCHEMA },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'name', 'targets'],
};
const ID = { sla_policy_id: { type: 'string', min: 1, max: 64 } } as const;

type PolicyInput = { name?: string; description?: string; targets?: SlaTargets };

function view(row: Row) {
  return { id: row.id, name: row.name, description: row.description, targets: row.targets, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

/** A first response due after the resolution makes no sense: 422 naming the priority. */
function checkTargets(targets: SlaTargets | undefined): void {
  if (!targets) return;
  const problems: FieldProblem[] = [];
  for (const key of PRIORITY_KEYS) {
    const t = targets[key];
    if (t?.response_minutes && t.resolution_minutes && t.response_minutes > t.resolution_minutes) {
      problems.push({ field: `targets.${key}.response_minutes`, message: `Priority ${key}: the response target (${t.response_minutes} min) is after the resolution target (${t.resolution_minutes} min).`, type: 'range' });
    }
  }
  if (problems.length) throw invalid(problems);
}

/**
 * New targets move the due dates of the tasks under the policy: each task whose dates change
 * gets a new version and a history entry, in the transaction of the policy change.
 */
async function recomputeDueDates(db: Sequelize, entityId: string, policyId: string, targets: SlaTargets, actorId: string, transaction: Transaction): Promise<number> {
  const rows = await db.query(
    `WITH old AS (
       SELECT id, created_at, priority, sla_response_due_at AS r0, sla_resolution_due_at AS s0 FROM tasks WHERE entity_id = $1 AND sla_policy_id = $2 FOR UPDATE
     ), calc AS (
       SELECT id, r0, s0,
              created_at + (($3::jsonb -> priority::text ->> 'response_minutes')::int * interval '1 minute') AS r1,
              created_at + (($3::jsonb -> priority::text ->> 'resolution_minutes')::int * interval '1 minute') AS s1
       FROM old
     ), changed AS (
       UPDATE tasks t SET sla_response_due_at = c.r1, sla_resolution_due_at = c.s1, version = t.version + 1, updated_at = $4
       FROM calc c WHERE t.id = c.id AND t.entity_id = $1 AND (c.r1 IS DISTINCT FROM c.r0 OR c.s1 IS DISTINCT FROM c.s0)
       RETURNING t.id, t.entity_id, c.r0, c.r1, c.s0, c.s1
     )
     INSERT INTO task_history (id, entity_id, task_id, action, actor_type, actor_id, changes, created_at)
     SELECT gen_random_uuid(), entity_id, id, 'sla_policy_changed', 'user', $5,
            jsonb_build_array(jsonb_build_object('field', 'sla_response_due_at', 'from', r0, 'to', r1), jsonb_build_object('field', 'sla_resolution_due_at', 'from', s0, 'to', s1)), $4
     FROM changed RETURNING task_id`,
    { bind: [entityId, policyId, JSON.stringify(targets), new Date(), actorId], type: QueryTypes.SELECT, transaction },
  );
  return rows.length;
}

export const listSlaPolicies: TasksAction = {
  rest: 'GET /sla-policies',
  summary: 'List SLA policies',
  tags: ['task collections'],
  params: { ...PAGING_PARAMS },
  response: pageSchema(POLICY_SCHEMA),
  async handler(ctx: Context<{ limit: number; offset: number }>) {
    const page = { limit: ctx.params.limit, offset: ctx.params.offset };
    const { rows, total } = await pageRows(dbOf(this), POLICIES, entityOf(ctx), page);
    return { items: rows.map(view), total, ...page };
  },
};

export const createSlaPolicy: TasksAction = {
  rest: 'POST /sla-policies',
  role: 'admin',
  summary: 'Create an SLA policy',
  tags: ['task collections'],
  params: FIELDS,
  response: { 201: { description: 'Created', schema: POLICY_SCHEMA } },
  async handler(ctx: Context<PolicyInput>) {
    checkTargets(ctx.params.targets);
    const row = await insertRow(dbOf(this), POLICIES, entityOf(ctx), ctx.params);
    created(ctx);
    return view(row);
  },
};

export const getSlaPolicy: TasksAction = {
  rest: 'GET /sla-policies/:sla_policy_id',
  summary: 'Get an SLA policy',
  tags: ['task collections'],
  params: ID,
  response: POLICY_SCHEMA,
  async handler(ctx: Context<{ sla_policy_id: string }>) {
    return view(await getRow(dbOf(this), POLICIES, entityOf(ctx), ctx.params.sla_policy_id));
  },
};

export const updateSlaPolicy: TasksAction = {
  rest: 'PUT /sla-policies/:sla_policy_id',
  role: 'admin',
  summary: 'Update an SLA policy',
  description: 'New `targets` move the SLA due dates of every task under the policy (each such task gets a history entry).',
  tags: ['task collections'],
  params: { ...ID, ...FIELDS, name: { ...FIELDS.name, optional: true }, targets: { ...FIELDS.targets, optional: true } },
  response: POLICY_SCHEMA,
  async handler(ctx: Context<PolicyInput & { sla_policy_id: string }>) {
    const { sla_policy_id: id, ...fields } = ctx.params;
    checkTargets(fields.targets);
    const db = dbOf(this);
    const who = identityOf(ctx);
    let moved = 0;
    const row = await db.transaction(async (transaction) => {
      const updated = await updateRow(db, POLICIES, who.entity_id, id, fields, transaction);
      if (fields.targets) moved = await recomputeDueDates(db, who.entity_id, updated.id, fields.targets, who.id, transaction);
      return updated;
    });
    if (moved) emitAfterCommit(ctx, 'task.sla.recomputed', { entity_id: who.entity_id, sla_policy_id: row.id, tasks: moved });
    return view(row);
  },
};

export const deleteSlaPolicy: TasksAction = {
  rest: 'DELETE /sla-policies/:sla_policy_id',
  role: 'admin',
  summary: 'Delete an SLA policy',
  description: 'Refused (409 `TASKS_ERR_IN_USE`) while tasks are under the policy.',
  tags: ['task collections'],
  params: ID,
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ sla_policy_id: string }>) {
    await deleteRow(dbOf(this), POLICIES, entityOf(ctx), ctx.params.sla_policy_id, { sql: 'SELECT count(*)::int AS n FROM tasks WHERE sla_policy_id = $1 AND entity_id = $2', what: 'task(s)' });
    return undefined;
  },
};
