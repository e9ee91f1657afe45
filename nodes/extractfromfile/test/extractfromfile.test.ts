import test from 'ava';
import { deflateRawSync, crc32 } from 'node:zlib';
import ExcelJS from 'exceljs';
import extract from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([extract]);
});
test.after.always(() => n?.close());

const b64 = (data: string | Uint8Array) => Buffer.from(data).toString('base64');

/** A one-page PDF showing `text` (hand-built, with a correct xref table); `encrypt` adds a Standard security handler needing a password. */
function pdf(text: string, encrypt = false): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  if (encrypt) objects.push(`<< /Filter /Standard /V 1 /R 2 /O <${'a1'.repeat(32)}> /U <${'b2'.repeat(32)}> /P -4 >>`);
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt ? ` /Encrypt ${objects.length} 0 R /ID [<${'c3'.repeat(16)}> <${'c3'.repeat(16)}>]` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A ZIP of one deflated entry (hand-built): a few hundred KB that expand to `size` bytes of zeros. */
function zipBomb(size: number): Buffer {
  const data = Buffer.alloc(size);
  const packed = deflateRawSync(data, { level: 9 });
  const name = Buffer.from('xl/worksheets/sheet1.xml');
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14); local.writeUInt32LE(packed.length, 18); local.writeUInt32LE(size, 22); local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16); central.writeUInt32LE(packed.length, 20); central.writeUInt32LE(size, 24); central.writeUInt16LE(name.length, 28);
  const body = Buffer.concat([local, name, packed]);
  const dir = Buffer.concat([central, name]);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(1, 8); end.writeUInt16LE(1, 10); end.writeUInt32LE(dir.length, 12); end.writeUInt32LE(body.length, 16);
  return Buffer.concat([body, dir, end]);
}

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

test('CSV: rows by header, the delimiter found, quoted fields, a BOM; header false gives arrays', async (t) => {
  const csv = '\ufeffname;city;note\nada;Berlin;"says ""hi""; twice"\nbo;Paris;\n';
  const r = await n.exec('extractfromfile', { content: b64(csv) });
  t.deepEqual(r.output, { format: 'csv', count: 2, rows: [{ name: 'ada', city: 'Berlin', note: 'says "hi"; twice' }, { name: 'bo', city: 'Paris', note: '' }] });
  const plain = await n.exec('extractfromfile', { content: 'a,b\n1,2\n', encoding: 'utf8', header: false });
  t.deepEqual(plain.output.rows, [['a', 'b'], ['1', '2']]);
});

test('JSON by its first character; XLSX by its signature, a sheet by name', async (t) => {
  t.deepEqual((await n.exec('extractfromfile', { content: ' [1, {"a": 2}]', encoding: 'utf8' })).output, { format: 'json', data: [1, { a: 2 }] });
  const book = new ExcelJS.Workbook();
  book.addWorksheet('Notes').addRow(['ignored']);
  const sheet = book.addWorksheet('Orders');
  sheet.addRow(['id', 'amount', 'when']);
  sheet.addRow([1, 9.5, new Date('2025-01-02T00:00:00Z')]);
  sheet.addRow([2, { formula: 'B2*2', result: 19 }, null]);
  const xlsx = Buffer.from(await book.xlsx.writeBuffer());
  const r = await n.exec('extractfromfile', { content: b64(xlsx), sheet: 'Orders' });
  t.deepEqual(r.output, { format: 'xlsx', sheet: 'Orders', sheets: ['Notes', 'Orders'], count: 2, rows: [{ id: 1, amount: 9.5, when: '2025-01-02T00:00:00.000Z' }, { id: 2, amount: 19, when: null }] });
  t.is((await n.failure('extractfromfile', { content: b64(xlsx), sheet: 'Missing' })).type, 'BAD_FILE');
});

test('PDF: the text of each page', async (t) => {
  const r = await n.exec('extractfromfile', { content: b64(pdf('Invoice 42 total 99 EUR')) });
  t.is(r.output.format, 'pdf');
  t.is(r.output.page_count, 1);
  t.regex(r.output.text, /Invoice 42 total 99 EUR/);
});

test('a PNG given as CSV is refused as a PNG; invalid UTF-8 and NUL bytes are not text', async (t) => {
  const png = await n.failure('extractfromfile', { content: b64(PNG), format: 'csv' });
  t.is(png.type, 'BAD_FILE');
  t.regex(png.message, /is a PNG image, not CSV/);
  t.is((await n.failure('extractfromfile', { content: b64(Buffer.from([0x61, 0xff, 0xfe, 0x62])), format: 'csv' })).type, 'BAD_FILE');
  t.is((await n.failure('extractfromfile', { content: b64('a,b\0c'), format: 'json' })).type, 'BAD_FILE');
  t.is((await n.failure('extractfromfile', { content: b64('{"a":'), format: 'json' })).type, 'BAD_FILE');
});

test('an encrypted PDF is refused as such', async (t) => {
  const enc = await n.failure('extractfromfile', { content: b64(pdf('secret', true)) });
  t.is(enc.type, 'BAD_FILE');
  t.regex(enc.message, /encrypted/);
});

test('a zip bomb is refused before the XLSX reader inflates it; a file over the size cap is refused', async (t) => {
  const bomb = await n.failure('extractfromfile', { content: b64(zipBomb(200 * 1024 * 1024)), format: 'xlsx' });
  t.is(bomb.type, 'BAD_FILE');
  t.regex(bomb.message, /zip bomb/);
  const big = await n.failure('extractfromfile', { content: 'x'.repeat(10 * 1024 * 1024 + 1), encoding: 'utf8' });
  t.is(big.type, 'FILE_TOO_LARGE');
  t.is((await n.failure('extractfromfile', { content: 'not base64 !' })).type, 'BAD_CONFIG');
});
