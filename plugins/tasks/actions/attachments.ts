import type { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { kernelOf } from '../../../kernel/context.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { validate as isUuid } from 'uuid';
import { getTask, appendHistory } from '../db/task-store.ts';
import { invalidField, notFound } from '../errors.ts';
import { ATTACHMENT_SCHEMA, attachmentKey, attachmentsOf, attachmentView, cleanFilename, insertAttachment, storeUpload, type AttachmentRow } from '../ops/attachments.ts';
import { created, dbOf, emitAfterCommit, type TasksAction } from '../service.ts';
import { taskWorkspace } from '../workspace-of.ts';

const ID = { type: 'string', min: 1, max: 64 } as const;

/** `GET /api/v1/tasks/{id}/attachments`: every file of the task (comment attachments included). */
export const listAttachments: TasksAction = {
  rest: 'GET /:id/attachments',
  summary: 'List the files of a task',
  tags: ['tasks'],
  params: { id: ID },
  response: { type: 'object', properties: { items: { type: 'array', items: ATTACHMENT_SCHEMA } }, required: ['items'] },
  async handler(ctx: Context<{ id: string }>) {
    const db = dbOf(this);
    const who = identityOf(ctx);
    const task = await getTask(db, who.entity_id, ctx.params.id);
    return { items: (await attachmentsOf(db, who.entity_id, task.id)).map(attachmentView) };
  },
};

/**
 * `POST /api/v1/tasks/{id}/attachments` (multipart/form-data, one or more files): each file is
 * streamed to the object store; its type is sniffed from its bytes; past UPLOAD_LIMIT_BYTES
 * it is a 413 and nothing is kept. The gateway calls this action once per file.
 */
export const uploadAttachment: TasksAction = {
  rest: { method: 'POST', path: '/:id/attachments', type: 'multipart' },
  workspaceOf: taskWorkspace,
  summary: 'Upload files to a task',
  description: 'multipart/form-data; one attachment per file part. The answer lists the stored attachments. The content type is sniffed from the bytes, not taken from the client.',
  tags: ['tasks'],
  params: {
    id: ID,
    $fieldname: { type: 'string', optional: true },
    $filename: { type: 'string', optional: true },
    $encoding: { type: 'string', optional: true },
    $mimetype: { type: 'string', optional: true },
  },
  response: { 201: { description: 'Stored', schema: { type: 'array', items: ATTACHMENT_SCHEMA } } },
  async handler(ctx: Context<{ id: string; $filename?: string; $mimetype?: string }>) {
    const stream = (ctx as unknown as { stream?: Readable }).stream;
    if (!stream) throw invalidField('file', 'The upload has no file part; send the file as multipart/form-data.', 'required');
    const kernel = kernelOf(this.broker);
    const db = dbOf(this);
    const who = identityOf(ctx);
    let task;
    try {
      task = await getTask(db, who.entity_id, ctx.params.id);
    } catch (err) {
      stream.resume(); // let the rest of the form be read, so the 404 gets out
      throw err;
    }
    const id = newId();
    const key = attachmentKey(who.entity_id, task.id, id);
    const filename = cleanFilename(ctx.params.$filename);
    const stored = await storeUpload(kernel.objects, key, stream, filename, kernel.config.env.UPLOAD_LIMIT_BYTES);
    const now = new Date();
    let row: AttachmentRow;
    try {
      row = await db.transaction(async (transaction) => {
        const inserted = await insertAttachment(
          db,
          who.entity_id,
          { id, task_id: task.id, object_key: key, filename, content_type: stored.contentType, declared_content_type: ctx.params.$mimetype ?? null, size: stored.size, uploaded_by: who.id },
          now,
          transaction,
        );
        await appendHistory(db, who.entity_id, task.id, { action: 'attachment_added', actor: { type: 'user', id: who.id }, changes: [{ field: 'attachments', from: null, to: { id, filename, size: stored.size, content_type: stored.contentType } }] }, now, transaction);
        return inserted;
      });
    } catch (err) {
      await kernel.objects.delete(key).catch(() => undefined); // the task went away meanwhile: keep no orphan bytes
      throw err;
    }
    emitAfterCommit(ctx, 'task.attachment.added', { entity_id: who.entity_id, task_id: task.id, attachment_id: id });
    created(ctx);
    return attachmentView(row);
  },
};

/** `GET /api/v1/tasks/{id}/attachments/{attachment_id}`: the bytes, with the original file name. */
export const downloadAttachment: TasksAction = {
  rest: 'GET /:id/attachments/:attachment_id',
  summary: 'Download a file of a task',
  tags: ['tasks'],
  params: { id: ID, attachment_id: ID },
  response: { 200: { description: 'The file', contentType: 'application/octet-stream', schema: { type: 'string', format: 'binary' } } },
  async handler(ctx: Context<{ id: string; attachment_id: string }>) {
    const db = dbOf(this);
    const who = identityOf(ctx);
    const task = await getTask(db, who.entity_id, ctx.params.id);
    if (!isUuid(ctx.params.attachment_id)) throw notFound('attachment', ctx.params.attachment_id);
    const [row] = await db.query<AttachmentRow>('SELECT * FROM task_attachments WHERE id = $1 AND task_id = $2 AND entity_id = $3', {
      bind: [ctx.params.attachment_id, task.id, who.entity_id],
      type: QueryTypes.SELECT,
    });
    if (!row) throw notFound('attachment', ctx.params.attachment_id);
    const object = await kernelOf(this.broker).objects.get(row.object_key);
    if (!object) throw notFound('attachment', ctx.params.attachment_id);
    const meta = ctx.meta as Record<string, unknown>;
    meta.$responseType = row.content_type;
    meta.$responseHeaders = {
      'Content-Disposition': contentDisposition(row.filename),
      'Content-Length': String(object.size),
      'X-Content-Type-Options': 'nosniff',
    };
    return object.body;
  },
};

/** RFC 6266: an ASCII fallback plus the exact UTF-8 name. */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
