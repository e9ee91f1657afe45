import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { afterCursor, CURSOR_PARAMS, cursorPage, cursorPageSchema } from '../../../kernel/tenancy/cursor.ts';
import { PAGING_PARAMS } from '../../../kernel/tenancy/paging.ts';
import { TASK_FEED_KEYSETS } from '../db/task-feed.ts';
import { getTask } from '../db/task-store.ts';
import { iso } from '../db/task-row.ts';
import { addComment, emitCommented, logsOf, type LogRow } from '../ops/comment.ts';
import { ATTACHMENT_SCHEMA, attachmentsOf, attachmentView, type AttachmentView } from '../ops/attachments.ts';
import { created, dbOf, userActor, type TasksAction } from '../service.ts';
import { taskWorkspace } from '../workspace-of.ts';

const ID = { type: 'string', min: 1, max: 64 } as const;

const LOG_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    task_id: { type: 'string' },
    author: { type: 'object', properties: { type: { type: 'string' }, id: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
    body: { type: 'string', description: 'Markdown' },
    mentions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string', enum: ['agent', 'user'] }, id: { type: 'string' } } } },
    attachments: { type: 'array', items: ATTACHMENT_SCHEMA },
    created_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'task_id', 'author', 'body', 'mentions', 'attachments', 'created_at'],
};

function logView(row: LogRow, attachments: AttachmentView[]) {
  return {
    id: row.id,
    task_id: row.task_id,
    author: { type: row.author_type, id: row.author_id },
    body: row.body,
    mentions: row.mentions,
    attachments: attachments.filter((a) => a.log_id === row.id),
    created_at: iso(row.created_at),
  };
}

/** `GET /api/v1/tasks/{id}/logs`: the comments, oldest first, with their files. */
export const listLogs: TasksAction = {
  rest: 'GET /:id/logs',
  summary: 'List the comments of a task',
  description: 'Oldest first; pages by `offset` or by `cursor` (the `next_cursor` of the previous page).',
  tags: ['tasks'],
  params: { id: ID, ...PAGING_PARAMS, ...CURSOR_PARAMS },
  response: cursorPageSchema(LOG_SCHEMA),
  async handler(ctx: Context<{ id: string; limit: number; offset: number; cursor?: string }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const page = { limit: ctx.params.limit, offset: ctx.params.offset, after: afterCursor(TASK_FEED_KEYSETS.task_logs, ctx.params) };
    const task = await getTask(db, entityId, ctx.params.id);
    const { rows, total } = await logsOf(db, entityId, task.id, page);
    const { items, ...rest } = cursorPage(TASK_FEED_KEYSETS.task_logs, rows, page);
    const files = items.length ? (await attachmentsOf(db, entityId, task.id, items.map((r) => r.id))).map(attachmentView) : [];
    return { items: items.map((r) => logView(r, files)), total, ...rest };
  },
};

/** `POST /api/v1/tasks/{id}/logs`: a Markdown comment, optionally with files uploaded before. */
export const addLog: TasksAction = {
  rest: 'POST /:id/logs',
  workspaceOf: taskWorkspace,
  summary: 'Comment on a task',
  description:
    'A comment on a task in `waiting_on_customer` or `on_hold` resumes it (a recorded move to `in_progress`). `@agent:<id>` in the text dispatches that agent (an execution record entry and a `task.run.requested` event). `attachment_ids` links files uploaded with `POST /tasks/{id}/attachments`.',
  tags: ['tasks'],
  params: {
    id: ID,
    body: { type: 'string', min: 1, max: 50_000 },
    attachment_ids: { type: 'array', items: { type: 'uuid' }, max: 20, optional: true },
  },
  response: { 201: { description: 'Created', schema: LOG_SCHEMA } },
  async handler(ctx: Context<{ id: string; body: string; attachment_ids?: string[] }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const actor = userActor(ctx);
    const result = await addComment(db, entityId, ctx.params.id, { body: ctx.params.body, attachment_ids: ctx.params.attachment_ids }, actor);
    emitCommented(ctx, result, actor);
    created(ctx);
    const files = ctx.params.attachment_ids?.length ? (await attachmentsOf(db, entityId, result.task.id, [result.log.id])).map(attachmentView) : [];
    return { ...logView(result.log, files), task: { status: result.task.status, version: Number(result.task.version) } };
  },
};
