import sharp, { type Metadata } from 'sharp';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';
import { sniffKind } from '../media/lib/kinds.ts';

/** The image work of the `image` node, with sharp (libvips): what it reads, what it writes, and its caps. */

/** Most pixels an image may have to be decoded (its first page: the only one read), and a result may have: a pixel bomb fails the step. */
export const MAX_PIXELS = 40_000_000;
export const MAX_SIDE = 10_000;

export const READ_FORMATS = ['png', 'jpeg', 'webp', 'gif', 'avif', 'tiff'] as const;
export const WRITE_FORMATS = ['png', 'jpeg', 'webp', 'avif', 'gif', 'tiff'] as const;
export type WriteFormat = (typeof WRITE_FORMATS)[number];

const MEDIA_TYPES: Record<WriteFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', avif: 'image/avif', gif: 'image/gif', tiff: 'image/tiff' };
const EXTENSIONS: Record<WriteFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp', avif: 'avif', gif: 'gif', tiff: 'tif' };

sharp.cache(false); // steps of many runs pass through: keep no decoded images around

export interface ImageFacts {
  format: string;
  media_type: string;
  width: number;
  height: number;
  pages: number;
  channels: number | null;
  space: string | null;
  has_alpha: boolean;
  orientation: number | null;
  density: number | null;
  size: number;
}

/**
 * The facts of an image read from its header only (nothing decoded yet): refuses what is not a
 * PNG, JPEG, WebP, GIF, AVIF or TIFF by its bytes (an SVG, a PDF, a PNG named .csv are all told
 * apart) and, when it is to be decoded, an image over MAX_PIXELS before a byte of it is.
 */
export async function inspect(bytes: Buffer, decode: boolean): Promise<ImageFacts> {
  const sniffed = await sniffKind(bytes);
  const format = sniffed.extension === 'jpg' ? 'jpeg' : sniffed.extension === 'tif' ? 'tiff' : sniffed.extension;
  if (sniffed.kind !== 'image' || !(READ_FORMATS as readonly string[]).includes(format)) {
    throw new NodeStepError(`The file is ${sniffed.media_type} (${sniffed.kind}), not an image this node reads (${READ_FORMATS.join(', ')}).`, 'BAD_FILE');
  }
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch (err) {
    throw new NodeStepError(`The ${format.toUpperCase()} image is damaged: ${(err as Error).message}`, 'BAD_FILE');
  }
  const pages = meta.pages ?? 1;
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (!width || !height) throw new NodeStepError('The image has no size in its header: it is damaged.', 'BAD_FILE');
  if (decode && width * height > MAX_PIXELS) {
    throw new NodeStepError(`The image is ${width}x${height} = ${width * height} pixels; at most ${MAX_PIXELS} are decoded (a pixel bomb is refused).`, 'IMAGE_TOO_LARGE');
  }
  return { format, media_type: sniffed.media_type, width, height, pages, channels: meta.channels ?? null, space: meta.space ?? null, has_alpha: meta.hasAlpha ?? false, orientation: meta.orientation ?? null, density: meta.density ?? null, size: bytes.length };
}

export interface Transform {
  resize?: { width?: number; height?: number; fit: 'cover' | 'contain' | 'fill' | 'inside' | 'outside'; without_enlargement: boolean };
  crop?: { left: number; top: number; width: number; height: number };
  format: WriteFormat;
  quality?: number;
}

export interface Written {
  bytes: Buffer;
  format: WriteFormat;
  media_type: string;
  extension: string;
  width: number;
  height: number;
}

/** The target format when none is named: the input's own. */
export function writeFormatOf(facts: ImageFacts, asked: WriteFormat | undefined): WriteFormat {
  if (asked) return asked;
  return (WRITE_FORMATS as readonly string[]).includes(facts.format) ? (facts.format as WriteFormat) : 'png';
}

/** The size a resize makes (as sharp computes it), so a tiny strip blown up to a huge image is refused before any work. */
export function resizedSize(from: { width: number; height: number }, r: NonNullable<Transform['resize']>): { width: number; height: number } {
  const sx = r.width ? r.width / from.width : undefined;
  const sy = r.height ? r.height / from.height : undefined;
  const cap = (s: number) => (r.without_enlargement ? Math.min(1, s) : s);
  if (sx !== undefined && sy !== undefined) {
    if (r.fit === 'inside') return scaled(from, cap(Math.min(sx, sy)));
    if (r.fit === 'outside') return scaled(from, cap(Math.max(sx, sy)));
    return r.without_enlargement ? { width: Math.min(r.width!, from.width), height: Math.min(r.height!, from.height) } : { width: r.width!, height: r.height! };
  }
  return scaled(from, cap((sx ?? sy)!));
}

function scaled(from: { width: number; height: number }, s: number): { width: number; height: number } {
  return { width: Math.max(1, Math.round(from.width * s)), height: Math.max(1, Math.round(from.height * s)) };
}

/** Applies `t` (EXIF orientation first, then crop, then resize) and encodes the result. */
export async function transform(bytes: Buffer, facts: ImageFacts, t: Transform, timeoutSeconds: number): Promise<Written> {
  if (t.crop) {
    const { left, top, width, height } = t.crop;
    if (left + width > facts.width || top + height > facts.height) {
      throw new NodeStepError(`config: the crop ${width}x${height} at (${left}, ${top}) is not inside the ${facts.width}x${facts.height} image.`, 'BAD_INPUT');
    }
  }
  const base = t.crop ?? facts;
  const out = t.resize ? resizedSize(base, t.resize) : base;
  if (out.width > MAX_SIDE || out.height > MAX_SIDE || out.width * out.height > MAX_PIXELS) {
    throw new NodeStepError(`config: the result would be ${out.width}x${out.height}; at most ${MAX_SIDE} a side and ${MAX_PIXELS} pixels.`, 'BAD_CONFIG');
  }
  let image = sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' }).rotate().timeout({ seconds: Math.max(1, Math.ceil(timeoutSeconds)) });
  if (t.crop) image = image.extract(t.crop);
  if (t.resize) image = image.resize({ width: t.resize.width, height: t.resize.height, fit: t.resize.fit, withoutEnlargement: t.resize.without_enlargement });
  image = image.toFormat(t.format, t.quality === undefined ? {} : { quality: t.quality });
  try {
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    return { bytes: data, format: t.format, media_type: MEDIA_TYPES[t.format], extension: EXTENSIONS[t.format], width: info.width, height: info.height };
  } catch (err) {
    const message = (err as Error).message;
    if (/timeout/i.test(message)) throw new NodeStepError(`The image work did not finish within ${Math.ceil(timeoutSeconds)} s.`, 'STEP_TIMEOUT');
    if (/pixel limit/i.test(message)) throw new NodeStepError(`The image is over ${MAX_PIXELS} pixels (a pixel bomb is refused).`, 'IMAGE_TOO_LARGE');
    throw new NodeStepError(`The image could not be processed: ${message}`, 'BAD_FILE');
  }
}
