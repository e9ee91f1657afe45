import { NodeStepError } from '../../kernel/nodes/model-step.ts';

/** File kinds told by their first bytes, so a PNG given as CSV is named as what it is. */
const MAGIC: [string, number[]][] = [
  ['a PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['a JPEG image', [0xff, 0xd8, 0xff]],
  ['a GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['a PDF document', [0x25, 0x50, 0x44, 0x46]],
  ['a ZIP archive (XLSX, DOCX, ...)', [0x50, 0x4b, 0x03, 0x04]],
  ['a gzip archive', [0x1f, 0x8b]],
];

export function sniff(bytes: Uint8Array): string | undefined {
  return MAGIC.find(([, sig]) => sig.every((b, i) => bytes[i] === b))?.[0];
}

export type FileFormat = 'csv' | 'xlsx' | 'pdf' | 'json';

/** The format of the bytes when none is given: PDF and ZIP by their signature, JSON by its first character, else CSV. */
export function detectFormat(bytes: Uint8Array): FileFormat {
  const kind = sniff(bytes);
  if (kind === 'a PDF document') return 'pdf';
  if (kind?.startsWith('a ZIP')) return 'xlsx';
  const first = new TextDecoder().decode(bytes.subarray(0, 64)).trimStart()[0];
  return first === '{' || first === '[' ? 'json' : 'csv';
}

/** Text formats must be UTF-8 text: anything with a binary signature, a NUL byte or invalid UTF-8 is refused. */
export function textOf(bytes: Uint8Array, format: FileFormat): string {
  const kind = sniff(bytes);
  if (kind) throw new NodeStepError(`The file is ${kind}, not ${format.toUpperCase()}.`, 'BAD_FILE');
  if (bytes.includes(0)) throw new NodeStepError(`The file holds NUL bytes: it is binary, not ${format.toUpperCase()} text.`, 'BAD_FILE');
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new NodeStepError(`The file is not UTF-8 text, so not ${format.toUpperCase()}.`, 'BAD_FILE');
  }
}
