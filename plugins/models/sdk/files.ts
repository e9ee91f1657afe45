import type { FilePart as SdkFilePart, ImagePart, TextPart as SdkTextPart } from 'ai';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import type { ObjectStore } from '../../../kernel/objects/types.ts';
import type { FilePart } from '../../../kernel/models-generate-contract.ts';

/** Largest file given to a model in one part. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

const TEXT_LIKE = /^(text\/[\w.+-]+|application\/(json|xml|yaml|x-yaml|javascript|x-ndjson|csv|sql|x-sh|[\w.-]+\+(json|xml)))$/i;

export type FileContent = ImagePart | SdkTextPart | SdkFilePart;

/**
 * Reads a FilePart's object for the model: images as image parts, text-like files as text (the
 * file named around it), anything else as a file part the provider may or may not accept.
 * An object key is the caller's only when its second segment is the caller's entity id
 * (`<package>/<entity_id>/…`, how packages key their objects); anything else, and a missing
 * object, is 404 naming the field, so no entity reads another's files.
 */
export function fileReader(objects: ObjectStore, entityId: string): (part: FilePart, field: string) => Promise<FileContent> {
  return async (part, field) => {
    const segments = part.object_key.split('/');
    const notFound = () => ERRORS.NOT_FOUND(`No file '${part.object_key}' (${field}.object_key).`, { resource: 'file', field: `${field}.object_key` });
    if (segments.length < 3 || decodeURIComponentSafe(segments[1]) !== entityId) throw notFound();
    const info = await objects.head(part.object_key);
    if (!info) throw notFound();
    if (info.size > MAX_FILE_BYTES) {
      throw ERRORS.VALIDATION_FAILED(`The file is larger than ${MAX_FILE_BYTES} bytes.`, [{ field: `${field}.object_key`, message: `The file '${part.object_key}' is ${info.size} bytes; at most ${MAX_FILE_BYTES} can be given to a model.`, type: 'fileTooLarge' }]);
    }
    const data = await objects.getBuffer(part.object_key);
    if (!data) throw notFound();
    const mediaType = part.media_type.toLowerCase();
    if (mediaType.startsWith('image/')) return { type: 'image', image: data, mediaType };
    if (TEXT_LIKE.test(mediaType)) {
      const name = (part.filename ?? segments.at(-1) ?? 'file').replace(/["\n\r]/g, '');
      return { type: 'text', text: `<file name="${name}" media_type="${mediaType}">\n${data.toString('utf8')}\n</file>` };
    }
    return { type: 'file', data, mediaType, ...(part.filename ? { filename: part.filename } : {}) };
  };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
