import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { appendHistory, getTask } from '../db/task-store.ts';
import { notFound } from '../errors.ts';
import { codeView, mintCode, type PublicCodeRow } from '../ops/public-codes.ts';
import { created, dbOf, type TasksAction } from '../service.ts';
import { taskWorkspace } from '../workspace-of.ts';

const ID = { type: 'string', min: 1, max: 64 } as const;
const CODE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    task_id: { type: 'string' },
    label: { type: 'string' },
    state: { type: 'string', enum: ['active', 'expired', 'revoked'] },
    expires_at: { type: 'string', format: 'date-time' },
    revoked_at: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    last_used_at: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    created_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'task_id', 'state', 'expires_at'],
};
const COLUMNS = 'id, entity_id, task_id, label, created_by, expires_at, revoked_at, last_used_at, created_at';

/** `POST /api/v1/tasks/{id}/public-codes`: a code for an external reviewer (shown only in this answer). */
export const mintPublicCode: TasksAction = {
  rest: 'POST /:id/public-codes',
  workspaceOf: taskWorkspace,
  summary: 'Mint a public review code for a task',
  description: 'The code opens `/api/v1/public/task/{code}` without a token for 7 days, until revoked. It is shown once; only its hash is stored.',
  tags: ['tasks'],
  params: { id: ID, label: { type: 'string', trim: true, max: 200, optional: true } },
  response: { 201: { description: 'Minted', schema: { ...CODE_SCHEMA, properties: { ...CODE_SCHEMA.properties, code: { type: 'string' }, public_path: { type: 'string' } }, required: [...CODE_SCHEMA.required, 'code'] } } },
  async handler(ctx: Context<{ id: string; label?: string }>) {
    const db = dbOf(this);
    const who = identityOf(ctx);
    const task = await getTask(db, who.entity_id, ctx.params.id);
    const { code, row } = await mintCode(db, who.entity_id, task.id, ctx.params.label ?? '', who.id);
    await appendHistory(db, who.entity_id, task.id, { action: 'public_code_minted', actor: { type: 'user', id: who.id }, changes: [{ field: 'public_codes', from: null, to: row.id }] }, new Date());
    created(ctx);
    return { ...codeView(row), code, public_path: `/api/v1/public/task/${code}` };
  },
};

/** `GET /api/v1/tasks/{id}/public-codes`: the task's codes (never the codes themselves). */
export const listPublicCodes: TasksAction = {
  rest: 'GET /:id/public-codes',
  summary: 'List the public review codes of a task',
  tags: ['tasks'],
  params: { id: ID },
  response: { type: 'object', properties: { items: { type: 'array', items: CODE_SCHEMA } }, required: ['items'] },
  async handler(ctx: Context<{ id: string }>) {
    const db = dbOf(this);
    const who = identityOf(ctx);
    const task = await getTask(db, who.entity_id, ctx.params.id);
    const rows = await db.query<PublicCodeRow>(`SELECT ${COLUMNS} FROM task_public_codes WHERE task_id = $1 AND entity_id = $2 ORDER BY created_at, id`, { bind: [task.id, who.entity_id], type: QueryTypes.SELECT });
    const now = new Date();
    return { items: rows.map((r) => codeView(r, now)) };
  },
};

/** `DELETE /api/v1/tasks/{id}/public-codes/{code_id}`: the code stops working at once. */
export const revokePublicCode: TasksAction = {
  rest: 'DELETE /:id/public-codes/:code_id',
  workspaceOf: taskWorkspace,
  summary: 'Revoke a public review code',
  tags: ['tasks'],
  params: { id: ID, code_id: ID },
  response: { 204: { description: 'Revoked' } },
  async handler(ctx: Context<{ id: string; code_id: string }>) {
    const db = dbOf(this);
    const who = identityOf(ctx);
    const task = await getTask(db, who.entity_id, ctx.params.id);
    if (!isUuid(ctx.params.code_id)) throw notFound('public code', ctx.params.code_id);
    const now = new Date();
    const revoked = await db.query<{ id: string }>(
      'UPDATE task_public_codes SET revoked_at = COALESCE(revoked_at, $1), updated_at = $1 WHERE id = $2 AND task_id = $3 AND entity_id = $4 RETURNING id',
      { bind: [now, ctx.params.code_id, task.id, who.entity_id], type: QueryTypes.SELECT },
    );
    if (!revoked.length) throw notFound('public code', ctx.params.code_id);
    await appendHistory(db, who.entity_id, task.id, { action: 'public_code_revoked', actor: { type: 'user', id: who.id }, changes: [{ field: 'public_codes', from: ctx.params.code_id, to: null }] }, now);
    return undefined;
  },
};
