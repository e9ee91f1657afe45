import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import type { ObjectStore } from '../../kernel/objects/types.ts';
import { newId } from '../../kernel/tenancy/ids.ts';
import type { StoredFile } from './store.ts';

/** Files a message may carry. */
export const MAX_FILES = 5;
/** Room for the text fields and the form's own framing beside the files. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
const TEXT_FIELDS = new Set(['message', 'workspace_context', 'conversation_id', 'agent_id', 'workspace_id']);
const FILE_FIELDS = new Set(['files', 'file']);
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

const invalid = (field: string, message: string, type: string) => ERRORS.VALIDATION_FAILED(message, [{ field, message, type }]);

export interface ChatForm {
  fields: Record<string, string>;
  files: File[];
}

/** Reads the rest of a request we refuse, so the client gets the answer instead of a cut connection. */
function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded) return resolve();
    req.on('end', resolve).on('error', () => resolve()).on('close', resolve);
    req.resume();
  });
}

/**
 * Reads a `multipart/form-data` chat message: text fields (each once) and up to MAX_FILES file
 * parts named `files` (or `file`). A file over `fileMax` bytes is a 413, an unknown or repeated
 * field a 422 naming it. The whole form is held in memory while read, bounded by
 * MAX_FILES x fileMax (+1 MiB): past that it is a 413 at once.
 */
export async function readChatForm(req: IncomingMessage, fileMax: number): Promise<ChatForm> {
  const limit = MAX_FILES * fileMax + FORM_OVERHEAD_BYTES;
  const tooLarge = (detail: string) => ERRORS.PAYLOAD_TOO_LARGE(detail, { limit_bytes: fileMax });
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    await drain(req);
    throw tooLarge(`The form is larger than ${MAX_FILES} files of at most ${fileMax} bytes each.`);
  }
  let seen = 0;
  let over = false;
  const counted = (Readable.toWeb(req) as ReadableStream<Uint8Array>).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) {
          over = true;
          controller.error(new Error('form too large'));
        } else controller.enqueue(chunk);
      },
    }),
  );
  let form: FormData;
  try {
    form = await new Request('http://chat.invalid/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type'] ?? '') }, body: counted, duplex: 'half' } as RequestInit).formData();
  } catch {
    await drain(req);
    if (over) throw tooLarge(`The form is larger than ${MAX_FILES} files of at most ${fileMax} bytes each.`);
    throw ERRORS.BAD_REQUEST('The multipart/form-data body could not be read.');
  }
  const fields: Record<string, string> = {};
  const files: File[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string') {
      if (!FILE_FIELDS.has(name)) throw invalid(name, `The '${name}' field is not accepted here; send files as 'files'.`, 'unknownField');
      if (value.size > fileMax) throw tooLarge(`The file '${value.name}' is ${value.size} bytes; a chat attachment may be at most ${fileMax} bytes (CHAT_FILE_MAX_BYTES).`);
      files.push(value);
      continue;
    }
    if (!TEXT_FIELDS.has(name)) throw invalid(name, `The '${name}' field is not accepted here.`, 'unknownField');
    if (name in fields) throw invalid(name, `The '${name}' field is given more than once.`, 'duplicate');
    fields[name] = value;
  }
  if (files.length > MAX_FILES) throw invalid('files', `At most ${MAX_FILES} files go with one message.`, 'arrayMax');
  return { fields, files };
}

/** A file name safe to store and show: no folders, no control characters, at most 255 characters. */
export function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 255) || 'file';
}

/** Stores the files under `chat/<entity>/<upload>/<file>` (the key shape plugins/models reads files by). */
export async function storeFiles(objects: ObjectStore, entityId: string, files: File[]): Promise<StoredFile[]> {
  const upload = newId();
  const stored: StoredFile[] = [];
  try {
    for (const file of files) {
      const key = `chat/${encodeURIComponent(entityId)}/${upload}/${newId()}`;
      const declared = (file.type || '').split(';')[0].trim().toLowerCase();
      const mediaType = MEDIA_TYPE.test(declared) ? declared : 'application/octet-stream';
      await objects.put(key, Buffer.from(await file.arrayBuffer()), { contentType: mediaType });
      stored.push({ object_key: key, media_type: mediaType, filename: cleanFilename(file.name), size: file.size });
    }
  } catch (err) {
    await removeFiles(objects, stored);
    throw err;
  }
  return stored;
}

export async function removeFiles(objects: ObjectStore, files: StoredFile[]): Promise<void> {
  await Promise.all(files.map((f) => objects.delete(f.object_key).catch(() => undefined)));
}
