import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { extractText, getDocumentProxy } from 'unpdf';
import { MAX_ITEMS, type StepBudget } from '../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../kernel/nodes/model-step.ts';
import { textOf } from './sniff.ts';
import { guardZip } from './zip-guard.ts';

export const MAX_PDF_PAGES = 500;
export const MAX_TEXT_CHARS = 5_000_000;

export interface ReadOptions {
  header: boolean;
  delimiter?: string;
  sheet?: string | number;
}

function bad(message: string): NodeStepError {
  return new NodeStepError(message, 'BAD_FILE');
}

function tooMany(n: number): NodeStepError {
  return new NodeStepError(`The file has more than ${MAX_ITEMS} rows; a step takes at most ${MAX_ITEMS}.`, 'FILE_TOO_LARGE');
}

/** Rows as objects by header (a header cell repeated or empty gets its column number), or as arrays. */
function rowsOf(matrix: unknown[][], header: boolean): unknown[] {
  if (matrix.length > MAX_ITEMS + 1) throw tooMany(matrix.length);
  if (!header) return matrix;
  const [head = [], ...rest] = matrix;
  const seen = new Set<string>();
  const names = head.map((h, i) => {
    const name = h === null || h === undefined || String(h).trim() === '' || seen.has(String(h)) ? `column_${i + 1}` : String(h);
    seen.add(name);
    return name;
  });
  return rest.map((row) => Object.fromEntries(names.map((n, i) => [n, row[i] ?? null])));
}

export function readCsv(bytes: Uint8Array, opts: ReadOptions): unknown[] {
  const text = textOf(bytes, 'csv');
  try {
    const matrix = parseCsv(text, { delimiter: opts.delimiter ?? [',', ';', '\t'], bom: true, relax_column_count: true, skip_empty_lines: true, to: MAX_ITEMS + 2 }) as string[][];
    return rowsOf(matrix, opts.header);
  } catch (err) {
    if (err instanceof NodeStepError) throw err;
    throw bad(`The CSV cannot be read: ${(err as Error).message}`);
  }
}

export function readJson(bytes: Uint8Array): unknown {
  const text = textOf(bytes, 'json');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw bad(`The JSON cannot be read: ${(err as Error).message}`);
  }
}

function cellValue(v: ExcelJS.CellValue): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v !== 'object') return v;
  if ('result' in v) return cellValue(v.result as ExcelJS.CellValue);
  if ('richText' in v) return v.richText.map((r) => r.text).join('');
  if ('text' in v) return v.text;
  if ('error' in v) return v.error;
  return null;
}

export async function readXlsx(bytes: Uint8Array, opts: ReadOptions, budget: StepBudget): Promise<{ rows: unknown[]; sheet: string; sheets: string[] }> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  await guardZip(buffer, budget);
  const book = new ExcelJS.Workbook();
  try {
    await book.xlsx.load(buffer as unknown as ArrayBuffer);
  } catch (err) {
    throw bad(`The XLSX cannot be read: ${(err as Error).message}`);
  }
  const sheets = book.worksheets.map((w) => w.name);
  const ws = typeof opts.sheet === 'number' ? book.worksheets[opts.sheet] : opts.sheet !== undefined ? book.getWorksheet(opts.sheet) : book.worksheets[0];
  if (!ws) throw bad(`The workbook has no sheet ${JSON.stringify(opts.sheet ?? 0)} (sheets: ${sheets.join(', ')}).`);
  if (ws.rowCount > MAX_ITEMS + 1) throw tooMany(ws.rowCount);
  const matrix: unknown[][] = [];
  for (let r = 1; r <= ws.rowCount; r++) {
    const row = ws.getRow(r);
    const cells: unknown[] = [];
    for (let c = 1; c <= ws.columnCount; c++) cells.push(cellValue(row.getCell(c).value));
    if (cells.some((c) => c !== null)) matrix.push(cells);
    await budget.tick(256);
  }
  return { rows: rowsOf(matrix, opts.header), sheet: ws.name, sheets };
}

export async function readPdf(bytes: Uint8Array, budget: StepBudget): Promise<{ text: string; pages: string[]; page_count: number }> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // no eval of font programs in this process (pdf.js option, not in unpdf's type)
    pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: true } as Parameters<typeof getDocumentProxy>[1]);
  } catch (err) {
    const e = err as { name?: string; message?: string };
    if (e?.name === 'PasswordException') throw bad('The PDF is encrypted (it needs a password): its text cannot be read.');
    throw bad(`The PDF cannot be read: ${e?.message ?? String(err)}`);
  }
  try {
    if (pdf.numPages > MAX_PDF_PAGES) throw new NodeStepError(`The PDF has ${pdf.numPages} pages; at most ${MAX_PDF_PAGES} are read.`, 'FILE_TOO_LARGE');
    budget.check();
    const { text } = await extractText(pdf, { mergePages: false });
    budget.check();
    const pages = text as unknown as string[];
    const joined = pages.join('\n');
    if (joined.length > MAX_TEXT_CHARS) throw new NodeStepError(`The PDF's text is over ${MAX_TEXT_CHARS} characters.`, 'FILE_TOO_LARGE');
    return { text: joined, pages, page_count: pdf.numPages };
  } finally {
    await (pdf as unknown as { destroy?: () => Promise<void> }).destroy?.();
  }
}
