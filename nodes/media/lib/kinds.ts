import { fileTypeFromBuffer } from 'file-type';

/**
 * What a file is, told from its bytes (file-type's signatures; text when none matches and the
 * bytes are UTF-8 without NUL), never from a name or a claimed type.
 */
export const MEDIA_KINDS = ['image', 'audio', 'video', 'document', 'archive', 'text', 'other'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export interface Sniffed {
  kind: MediaKind;
  media_type: string;
  extension: string;
  /** set for a playlist or concat list: a file naming other files or URLs, which no media step reads */
  playlist?: { format: string; points_at_url: boolean };
}

const DOCUMENTS = new Set(['application/pdf', 'application/rtf', 'application/epub+zip', 'application/msword', 'application/x-cfb', 'application/vnd.oasis.opendocument.text', 'application/vnd.oasis.opendocument.spreadsheet', 'application/vnd.oasis.opendocument.presentation']);
const ARCHIVES = new Set(['application/zip', 'application/gzip', 'application/x-tar', 'application/x-7z-compressed', 'application/x-rar-compressed', 'application/x-bzip2', 'application/x-xz', 'application/zstd', 'application/x-lzip']);

const PLAYLISTS: [string, RegExp][] = [
  ['an M3U/HLS playlist', /^#EXTM3U/],
  ['an ffconcat list', /^ffconcat\s+version/],
  ['a PLS playlist', /^\[playlist\]/i],
  ['an XSPF/SMIL/ASX playlist', /^<\?xml[^>]*>\s*<(playlist|smil|asx)\b|^<(smil|asx)\b/i],
];

function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 64 * 1024));
  } catch {
    return undefined; // cut inside a character, or not UTF-8: treated as binary
  }
}

export async function sniffKind(bytes: Uint8Array): Promise<Sniffed> {
  const found = await fileTypeFromBuffer(bytes);
  if (found) {
    const { mime, ext } = found;
    const kind: MediaKind = mime.startsWith('image/') ? 'image' : mime.startsWith('audio/') ? 'audio' : mime.startsWith('video/') ? 'video' : DOCUMENTS.has(mime) || mime.startsWith('application/vnd.openxmlformats') ? 'document' : ARCHIVES.has(mime) ? 'archive' : 'other';
    return { kind, media_type: mime, extension: ext };
  }
  const text = textOf(bytes);
  if (text === undefined) return { kind: 'other', media_type: 'application/octet-stream', extension: 'bin' };
  const trimmed = text.replace(/^\ufeff/, '').trimStart();
  const playlist = PLAYLISTS.find(([, re]) => re.test(trimmed));
  if (playlist) return { kind: 'text', media_type: 'text/plain', extension: 'txt', playlist: { format: playlist[0], points_at_url: /[a-z][a-z0-9+.-]*:\/\//i.test(text) } };
  return { kind: 'text', media_type: 'text/plain', extension: 'txt' };
}

/** The failure message for a playlist given to a media step. */
export function playlistRefusal(p: NonNullable<Sniffed['playlist']>): string {
  return `The file is ${p.format}${p.points_at_url ? ' pointing at a URL' : ''}: playlists and concat lists are refused (they make the reader open other files or the network).`;
}
