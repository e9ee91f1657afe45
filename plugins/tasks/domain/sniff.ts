/**
 * The content type of an upload, read from its first bytes (no I/O). What the client declared
 * is never trusted: an executable named `cat.png` is `application/octet-stream`. The file
 * name only tells apart formats that share their bytes (a ZIP-based office file, CSV vs text).
 */

/** How many leading bytes `sniffContentType` wants to see. */
export const SNIFF_BYTES = 4100;

const startsWith = (head: Uint8Array, bytes: number[], offset = 0) => bytes.every((b, i) => head[offset + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const MAGIC: { type: string; test: (head: Uint8Array) => boolean }[] = [
  { type: 'image/png', test: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', test: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', test: (h) => startsWith(h, ascii('GIF87a')) || startsWith(h, ascii('GIF89a')) },
  { type: 'image/webp', test: (h) => startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WEBP'), 8) },
  { type: 'audio/wav', test: (h) => startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WAVE'), 8) },
  { type: 'application/pdf', test: (h) => startsWith(h, ascii('%PDF-')) },
  { type: 'application/gzip', test: (h) => startsWith(h, [0x1f, 0x8b]) },
  { type: 'audio/mpeg', test: (h) => startsWith(h, ascii('ID3')) || (h[0] === 0xff && (h[1] & 0xe0) === 0xe0 && h.length > 2) },
  { type: 'audio/ogg', test: (h) => startsWith(h, ascii('OggS')) },
  { type: 'video/webm', test: (h) => startsWith(h, [0x1a, 0x45, 0xdf, 0xa3]) },
  { type: 'video/quicktime', test: (h) => startsWith(h, ascii('ftypqt'), 4) },
  { type: 'video/mp4', test: (h) => startsWith(h, ascii('ftyp'), 4) },
  { type: 'application/x-executable', test: (h) => startsWith(h, [0x7f, 0x45, 0x4c, 0x46]) || startsWith(h, ascii('MZ')) },
];

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const OFFICE: [string, string][] = [
  ['word/', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['xl/', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['ppt/', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
];

/** `complete`: the head is the whole file (it is when shorter than SNIFF_BYTES). */
export function sniffContentType(head: Uint8Array, filename = '', complete = head.length < SNIFF_BYTES): string {
  for (const magic of MAGIC) if (magic.test(head)) return magic.type;
  if (startsWith(head, ZIP_MAGIC) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) {
    const names = Buffer.from(head).toString('latin1');
    return OFFICE.find(([marker]) => names.includes(marker))?.[1] ?? 'application/zip';
  }
  const text = asUtf8Text(head, complete);
  return text === null ? 'application/octet-stream' : textType(text, filename.toLowerCase());
}

/**
 * The text, or null for binary content (a NUL byte, or bytes that are not UTF-8). A head cut
 * from a longer file may end inside a multi-byte character: up to 3 trailing bytes may go.
 */
function asUtf8Text(head: Uint8Array, complete: boolean): string | null {
  if (head.includes(0)) return null;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const cut of complete ? [0] : [0, 1, 2, 3]) {
    if (cut > head.length) break;
    try {
      return decoder.decode(head.subarray(0, head.length - cut));
    } catch {
      // try a shorter cut
    }
  }
  return null;
}

function textType(text: string, filename: string): string {
  const start = text.replace(/^\uFEFF/, '').trimStart().slice(0, 256).toLowerCase();
  if (start.startsWith('%!ps')) return 'application/postscript';
  if (start.startsWith('<svg') || (start.startsWith('<?xml') && text.slice(0, 1024).includes('<svg'))) return 'image/svg+xml';
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'text/html';
  if (start.startsWith('<?xml')) return 'application/xml';
  if ((start.startsWith('{') || start.startsWith('[')) && filename.endsWith('.json')) return 'application/json';
  if (filename.endsWith('.csv')) return 'text/csv';
  if (filename.endsWith('.md') || filename.endsWith('.markdown')) return 'text/markdown';
  return 'text/plain';
}
