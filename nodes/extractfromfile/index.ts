import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, MAX_ITEMS, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../kernel/nodes/model-step.ts';
import { MAX_PDF_PAGES, readCsv, readJson, readPdf, readXlsx } from './readers.ts';
import { detectFormat, type FileFormat } from './sniff.ts';
import { MAX_UNZIPPED_BYTES } from './zip-guard.ts';

/** Largest file a step reads (decoded bytes). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * Workflow node type `extractfromfile`: rows of a CSV (csv-parse) or XLSX sheet (exceljs), the
 * text of a PDF (unpdf), or the value of a JSON file, from `content` (base64, or text). Files
 * are hostile: a size cap, the format checked against the bytes (a PNG given as CSV is
 * refused as a PNG), a zip bomb refused before the XLSX reader inflates it, an encrypted PDF
 * refused, and caps on rows, pages and text.
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'extractfromfile',
  version: 1,
  category: 'data',
  title: 'Extract from File',
  description: 'Reads the rows of a CSV or XLSX file, the text of a PDF, or a JSON file.',
  config_schema: {
    type: 'object',
    properties: {
      content: { type: 'string', maxLength: Math.ceil((MAX_FILE_BYTES * 4) / 3) + 4, description: `The file, base64-encoded (or plain text with encoding utf8), at most ${MAX_FILE_BYTES} bytes decoded.`, examples: ['{{download.output.body_base64}}'] },
      encoding: { type: 'string', enum: ['base64', 'utf8'], default: 'base64', description: 'How content is given.', examples: ['utf8'] },
      format: { type: 'string', enum: ['auto', 'csv', 'xlsx', 'pdf', 'json'], default: 'auto', description: 'The file format (auto: PDF and XLSX by their signature, JSON by a leading { or [, else CSV).', examples: ['csv'] },
      header: { type: 'boolean', default: true, description: 'CSV and XLSX: the first row names the columns (rows become objects); false gives arrays.', examples: [false] },
      delimiter: { type: ['string', 'null'], minLength: 1, maxLength: 5, default: null, description: 'CSV: the field delimiter (null: comma, semicolon or tab, whichever the text uses).', examples: [';'] },
      sheet: { oneOf: [{ type: 'string', minLength: 1, maxLength: 100 }, { type: 'integer', minimum: 0, maximum: 1000 }], default: 0, description: 'XLSX: the sheet, by name or 0-based position.', examples: ['Orders'] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    required: ['content'],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
  failures: {
    ...COMMON_STEP_FAILURES,
    BAD_FILE: 'the bytes are not the format named (a PNG given as CSV, invalid UTF-8), a damaged file, an encrypted PDF, or a zip bomb',
    FILE_TOO_LARGE: `over ${MAX_FILE_BYTES} bytes, ${MAX_ITEMS} rows, ${MAX_PDF_PAGES} PDF pages, or ${MAX_UNZIPPED_BYTES} bytes unzipped`,
  },
};

type Config = { content: string; encoding?: 'base64' | 'utf8'; format?: 'auto' | FileFormat; header?: boolean; delimiter?: string | null; sheet?: string | number };

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

function bytesOf(config: Config): Uint8Array {
  if (config.encoding === 'utf8') {
    const bytes = new TextEncoder().encode(config.content);
    if (bytes.length > MAX_FILE_BYTES) throw new NodeStepError(`The file is ${bytes.length} bytes; at most ${MAX_FILE_BYTES} are read.`, 'FILE_TOO_LARGE');
    return bytes;
  }
  if (!BASE64.test(config.content)) throw new NodeStepError('config.content is not base64 (give encoding utf8 for text).', 'BAD_CONFIG');
  if (config.content.length > Math.ceil((MAX_FILE_BYTES * 4) / 3) + 4) throw new NodeStepError(`The file is over ${MAX_FILE_BYTES} bytes.`, 'FILE_TOO_LARGE');
  return Buffer.from(config.content, 'base64');
}

export default defineDataNodeType<Config>(nodeType, async ({ config }, budget) => {
  const bytes = bytesOf(config);
  const format = !config.format || config.format === 'auto' ? detectFormat(bytes) : config.format;
  const opts = { header: config.header ?? true, delimiter: config.delimiter ?? undefined, sheet: config.sheet };
  switch (format) {
    case 'csv': {
      const rows = readCsv(bytes, opts);
      return { output: { format, rows, count: rows.length } };
    }
    case 'json':
      return { output: { format, data: readJson(bytes) } };
    case 'xlsx': {
      const { rows, sheet, sheets } = await readXlsx(bytes, opts, budget);
      return { output: { format, rows, count: rows.length, sheet, sheets } };
    }
    case 'pdf':
      return { output: { format, ...(await readPdf(bytes, budget)) } };
  }
});
