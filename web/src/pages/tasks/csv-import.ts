import Papa from 'papaparse';
import { ApiError } from '../../api/problem';

export interface CsvPreview {
  header: string[];
  /** data rows with their line number as the server counts them (the header is row 1) */
  rows: { line: number; cells: string[] }[];
  /** what the parser could not read (unbalanced quotes…): the server refuses such a file too */
  parseErrors: string[];
}

/** The file as the server will read it: a header row, then one task per row. */
export function previewCsv(text: string): CsvPreview {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy' });
  const [header = [], ...rest] = parsed.data;
  return {
    header: header.map((h) => h.trim()),
    rows: rest.map((cells, i) => ({ line: i + 2, cells })),
    parseErrors: parsed.errors.map((e) => (e.row !== undefined ? `Row ${e.row + 1}: ${e.message}` : e.message)),
  };
}

export interface RowProblems {
  /** the row number (`rows[3]` is row 3), or null for the file as a whole */
  row: number | null;
  problems: { column: string; message: string }[];
}

/** A 422 of POST /tasks/import grouped by row: `rows[3].priority` is row 3, column priority. */
export function problemsByRow(error: unknown): RowProblems[] {
  if (!(error instanceof ApiError)) return [];
  const byRow = new Map<number | null, RowProblems>();
  for (const e of error.problem.errors ?? []) {
    const m = /^rows\[(\d+)\](?:\.(.+))?$/.exec(e.field);
    const row = m ? Number(m[1]) : null;
    const entry = byRow.get(row) ?? { row, problems: [] };
    entry.problems.push({ column: m ? (m[2] ?? '') : e.field, message: e.message });
    byRow.set(row, entry);
  }
  return [...byRow.values()].sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
}
