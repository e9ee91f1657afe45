/**
 * RFC 4180 CSV (no I/O): comma-separated, fields optionally in double quotes, `""` for a quote
 * inside one, CRLF or LF line ends, a leading UTF-8 BOM ignored. Quoted fields may span lines.
 */

export interface CsvRecord {
  /** 1-based line number where the record starts (the header is line 1) */
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvSyntaxError';
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let line = 1;
  let i = 0;
  while (i < src.length) {
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let value = '';
      if (src[i] === '"') {
        i++;
        for (;;) {
          if (i >= src.length) throw new CsvSyntaxError(start, 'a quoted field is not closed');
          const c = src[i];
          if (c === '"') {
            if (src[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          value += c;
          i++;
        }
        if (i < src.length && src[i] !== ',' && src[i] !== '\n' && src[i] !== '\r') throw new CsvSyntaxError(line, 'text after a closing quote');
      } else {
        while (i < src.length && src[i] !== ',' && src[i] !== '\n' && src[i] !== '\r') {
          if (src[i] === '"') throw new CsvSyntaxError(line, 'a quote inside an unquoted field');
          value += src[i++];
        }
      }
      fields.push(value);
      if (src[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (src[i] === '\r') i++;
    if (src[i] === '\n') i++;
    line++;
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
  }
  return records;
}
