import type { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import { kernelOf } from '../../../kernel/context.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { IMPORT_COLUMNS, MAX_IMPORT_ROWS } from '../domain/import-rows.ts';
import { invalidField } from '../errors.ts';
import { importCsv } from '../ops/import.ts';
import { emitCreated } from '../ops/create.ts';
import { created, dbOf, userActor, type TasksAction } from '../service.ts';

/** The whole upload as text, refusing more than `limit` bytes (413) or bytes that are not UTF-8 (422). */
async function readText(stream: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw ERRORS.PAYLOAD_TOO_LARGE(`The file is larger than the upload limit of ${limit} bytes.`, { limit_bytes: limit });
      chunks.push(chunk);
    }
  } catch (err) {
    stream.resume();
    if ((err as { code?: number }).code === 413) throw ERRORS.PAYLOAD_TOO_LARGE(`The file is larger than the upload limit of ${limit} bytes.`, { limit_bytes: limit });
    throw err;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw invalidField('file', 'The CSV file must be UTF-8 text.', 'encoding');
  }
}

/**
 * `POST /api/v1/tasks/import` (multipart/form-data, a CSV file): every row becomes a task, in
 * one transaction, or none does; a bad row is a 422 listing row numbers and problems.
 */
export const importTasks: TasksAction = {
  rest: { method: 'POST', path: '/import', type: 'multipart' },
  summary: 'Import tasks from a CSV file',
  description: `Header columns (any order, any case; \`title\` required): ${IMPORT_COLUMNS.join(', ')}. \`category\` is a category name or id, \`assignee\` is \`user:<id>\` or \`agent:<id>\`, \`status\` an initial status. At most ${MAX_IMPORT_ROWS} rows. All rows or none: problems are listed as \`rows[<line>].<column>\`.`,
  tags: ['tasks'],
  params: {
    $fieldname: { type: 'string', optional: true },
    $filename: { type: 'string', optional: true },
    $encoding: { type: 'string', optional: true },
    $mimetype: { type: 'string', optional: true },
  },
  response: {
    201: {
      description: 'Imported (one entry per uploaded file)',
      schema: { type: 'array', items: { type: 'object', properties: { imported: { type: 'integer' }, task_ids: { type: 'array', items: { type: 'string' } } }, required: ['imported', 'task_ids'] } },
    },
  },
  async handler(ctx: Context<Record<string, unknown>>) {
    const stream = (ctx as unknown as { stream?: Readable }).stream;
    if (!stream) throw invalidField('file', 'The upload has no file part; send the CSV file as multipart/form-data.', 'required');
    const entityId = entityOf(ctx);
    const text = await readText(stream, kernelOf(this.broker).config.env.UPLOAD_LIMIT_BYTES);
    const actor = userActor(ctx);
    const result = await importCsv(ctx, dbOf(this), entityId, text, actor);
    result.rows.forEach((row, i) => emitCreated(ctx, { row, execution: result.execution[i] }, actor));
    created(ctx);
    return { imported: result.rows.length, task_ids: result.rows.map((r) => r.id) };
  },
};
