import type { Readable } from 'node:stream';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import type { ObjectStore } from '../../../kernel/objects/types.ts';
import { SNIFF_BYTES, sniffContentType } from '../domain/sniff.ts';
import { iso } from '../db/task-row.ts';

/** Attachments: bytes in the object store (streamed, never buffered whole), a row per file. */

export interface AttachmentRow {
  id: string;
  task_id: string;
  log_id: string | null;
  object_key: string;
  filename: string;
  content_type: string;
  declared_content_type: string | null;
  size: string | number;
  uploaded_by: string | null;
  created_at: Date;
}

export interface AttachmentView {
  id: string;
  task_id: string;
  log_id: string | null;
  filename: string;
  content_type: string;
  size: number;
  uploaded_by: string | null;
  created_at: string;
  download_path: string;
}

export const ATTACHMENT_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    task_id: { type: 'string' },
    log_id: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    filename: { type: 'string' },
    content_type: { type: 'string', description: 'sniffed from the bytes, not taken from the client' },
    size: { type: 'integer' },
    uploaded_by: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    created_at: { type: 'string', format: 'date-time' },
    download_path: { type: 'string' },
  },
  required: ['id', 'task_id', 'filename', 'content_type', 'size', 'created_at', 'download_path'],
};

export function attachmentView(row: AttachmentRow): AttachmentView {
  return {
    id: row.id,
    task_id: row.task_id,
    log_id: row.log_id,
    filename: row.filename,
    content_type: row.content_type,
    size: Number(row.size),
    uploaded_by: row.uploaded_by,
    created_at: iso(row.created_at)!,
    download_path: `/api/v1/tasks/${row.task_id}/attachments/${row.id}`,
  };
}

export function attachmentKey(entityId: string, taskId: string, attachmentId: string): string {
  return `tasks/${encodeURIComponent(entityId)}/${taskId}/${attachmentId}`;
}

/** A file name safe to store and send back: no folders, no control characters, at most 255 characters. */
export function cleanFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 255);
  return cleaned || 'file';
}

/**
 * Streams an upload into the store: the first bytes decide the content type, every byte is
 * counted, and more than `limit` bytes is a 413 that leaves nothing stored.
 */
export async function storeUpload(objects: ObjectStore, key: string, stream: Readable, filename: string, limit: number): Promise<{ size: number; contentType: string }> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let size = 0;
  const tooLarge = () => ERRORS.PAYLOAD_TOO_LARGE(`The file is larger than the upload limit of ${limit} bytes.`, { limit_bytes: limit });
  const next = async (): Promise<Buffer | null> => {
    const { value, done } = await chunks.next();
    if (done) return null;
    size += value.length;
    if (size > limit) throw tooLarge();
    return value;
  };
  try {
    const head: Buffer[] = [];
    let headLength = 0;
    let ended = false;
    while (headLength < SNIFF_BYTES) {
      const chunk = await next();
      if (chunk === null) {
        ended = true;
        break;
      }
      head.push(chunk);
      headLength += chunk.length;
    }
    const first = Buffer.concat(head);
    const contentType = sniffContentType(first.subarray(0, SNIFF_BYTES), filename, ended);
    async function* body(): AsyncIterable<Uint8Array> {
      yield first;
      if (ended) return;
      for (let chunk = await next(); chunk !== null; chunk = await next()) yield chunk;
    }
    await objects.put(key, body(), { contentType });
    return { size, contentType };
  } catch (err) {
    stream.resume();
    await objects.delete(key).catch(() => undefined);
    if (size > limit || (err as { type?: string }).type === 'PAYLOAD_TOO_LARGE' || (err as { code?: number }).code === 413) throw tooLarge();
    throw err;
  }
}

export async function insertAttachment(
  db: Sequelize,
  entityId: string,
  row: Omit<AttachmentRow, 'created_at' | 'log_id'> & { log_id?: string | null },
  now: Date,
  transaction?: Transaction,
): Promise<AttachmentRow> {
  const [inserted] = await db.query<AttachmentRow>(
    `INSERT INTO task_attachments (id, entity_id, task_id, log_id, object_key, filename, content_type, declared_content_type, size, uploaded_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    {
      bind: [row.id, entityId, row.task_id, row.log_id ?? null, row.object_key, row.filename, row.content_type, row.declared_content_type, row.size, row.uploaded_by, now],
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return inserted;
}

export async function attachmentsOf(db: Sequelize, entityId: string, taskId: string, logIds?: string[]): Promise<AttachmentRow[]> {
  const byLog = logIds ? ' AND log_id = ANY($3::uuid[])' : '';
  return db.query<AttachmentRow>(`SELECT * FROM task_attachments WHERE task_id = $1 AND entity_id = $2${byLog} ORDER BY created_at, id`, {
    bind: logIds ? [taskId, entityId, logIds] : [taskId, entityId],
    type: QueryTypes.SELECT,
  });
}
