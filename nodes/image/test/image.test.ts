import test from 'ava';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import image from '../index.ts';
import { startMediaBroker } from '../../media/test/helpers/media-broker.ts';

let n: Awaited<ReturnType<typeof startMediaBroker>>;
test.before(async () => {
  n = await startMediaBroker([image]);
});
test.after.always(() => n?.close());

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toBuffer();

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A PNG whose header claims width x height grey pixels, with a few hundred bytes of data: a pixel bomb. */
function pixelBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = deflateSync(Buffer.alloc((width + 1) * 64));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', rows), chunk('IEND', Buffer.alloc(0))]);
}

test('metadata reads the header: format, size, channels; nothing is stored', async (t) => {
  const r = await n.exec('image', { operation: 'metadata', content: b64(await png(40, 30)) });
  t.like(r.output, { operation: 'metadata', format: 'png', media_type: 'image/png', width: 40, height: 30, channels: 3, has_alpha: false, pages: 1 });
  t.deepEqual(r.artifacts, []);
});

test('resize stores the result as an artifact of the run; a repeat writes the same key; the artifact feeds the next step', async (t) => {
  const source = b64(await png(400, 200));
  const r = await n.exec('image', { operation: 'resize', content: source, width: 100 });
  t.like(r.output, { operation: 'resize', format: 'png', width: 100, height: 50, source: { width: 400, height: 200 } });
  t.regex(r.output.artifact.object_key, /^workflows\/artifacts\/e-1\/r-1\/[a-f0-9]{64}\.png$/);
  t.deepEqual(r.artifacts, [r.output.artifact]);
  const stored = await n.objects.getBuffer(r.output.artifact.object_key);
  t.like(await sharp(stored!).metadata(), { width: 100, height: 50, format: 'png' });
  const again = await n.exec('image', { operation: 'resize', content: source, width: 100 });
  t.is(again.output.artifact.object_key, r.output.artifact.object_key);

  const converted = await n.exec('image', { operation: 'convert', artifact: r.output.artifact, format: 'webp', quality: 70, inline: true });
  t.like(converted.output, { format: 'webp', media_type: 'image/webp', width: 100, height: 50 });
  t.like(await sharp(Buffer.from(converted.output.content, 'base64')).metadata(), { format: 'webp', width: 100 });
  const byKey = await n.exec('image', { operation: 'metadata', artifact: converted.output.artifact.object_key });
  t.like(byKey.output, { format: 'webp', width: 100, height: 50 });
});

test('resize with both sides follows fit; crop takes the region; a crop outside the image fails with its reason', async (t) => {
  const source = b64(await png(400, 200));
  t.like((await n.exec('image', { operation: 'resize', content: source, width: 100, height: 100, fit: 'inside' })).output, { width: 100, height: 50 });
  t.like((await n.exec('image', { operation: 'resize', content: source, width: 100, height: 100 })).output, { width: 100, height: 100 });
  t.like((await n.exec('image', { operation: 'resize', content: source, width: 800, without_enlargement: true })).output, { width: 400, height: 200 });
  t.like((await n.exec('image', { operation: 'crop', content: source, left: 10, top: 20, width: 50, height: 60, format: 'jpeg' })).output, { width: 50, height: 60, format: 'jpeg', media_type: 'image/jpeg' });
  const outside = await n.failure('image', { operation: 'crop', content: source, left: 390, top: 0, width: 50, height: 60 });
  t.is(outside.type, 'BAD_INPUT');
  t.regex(outside.message, /not inside the 400x200 image/);
});

test('a pixel bomb fails the step with its size before anything is decoded; metadata of it is still answered', async (t) => {
  const bomb = b64(pixelBomb(30000, 30000));
  const f = await n.failure('image', { operation: 'resize', content: bomb, width: 10 });
  t.is(f.type, 'IMAGE_TOO_LARGE');
  t.regex(f.message, /30000x30000 = 900000000 pixels/);
  t.like((await n.exec('image', { operation: 'metadata', content: bomb })).output, { width: 30000, height: 30000 });
});

test('a result that would be huge (a thin strip blown up) is refused before any work', async (t) => {
  const f = await n.failure('image', { operation: 'resize', content: b64(await png(1, 1000)), width: 5000 });
  t.is(f.type, 'BAD_CONFIG');
  t.regex(f.message, /would be 5000x5000000/);
});

test('bad input: an SVG, text, a PDF; both or neither source; a foreign artifact; bad config values', async (t) => {
  const svg = b64(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="file:///etc/passwd"/></svg>'));
  const f = await n.failure('image', { operation: 'metadata', content: svg });
  t.is(f.type, 'BAD_FILE');
  t.regex(f.message, /text\/plain \(text\), not an image this node reads/);
  t.regex((await n.failure('image', { operation: 'metadata', content: b64(Buffer.from('%PDF-1.4\n%....\n1 0 obj\n<<>>\nendobj\n')) })).message, /application\/pdf \(document\)/);
  t.is((await n.failure('image', { operation: 'metadata', content: 'not base64!' })).type, 'BAD_CONFIG');
  const both = await n.failure('image', { operation: 'metadata', content: 'AAAA', artifact: 'x' });
  t.is(both.type, 'BAD_CONFIG');
  t.regex(both.message, /both set/);
  t.regex((await n.failure('image', { operation: 'metadata' })).message, /config\.artifact is required/);
  const other = await n.exec('image', { operation: 'resize', content: b64(await png(10, 10)), width: 5 }, null, { entity_id: 'e-2', run_id: 'r-9' });
  const foreign = await n.failure('image', { operation: 'metadata', artifact: other.output.artifact });
  t.is(foreign.type, 'BAD_INPUT');
  t.regex(foreign.message, /no artifact .* of this workflow's owner/);
  t.is((await n.failure('image', { operation: 'metadata', artifact: 'workflows/artifacts/e-1/../e-2/x.png' })).type, 'BAD_INPUT');
  t.regex((await n.failure('image', { operation: 'crop', content: 'AAAA', left: 0, top: 0, width: 5 })).message, /config\.height is required/);
  t.regex((await n.failure('image', { operation: 'convert', content: 'AAAA' })).message, /config\.format is required/);
  t.regex((await n.failure('image', { operation: 'resize', content: 'AAAA', width: 0 })).message, /config\.width/);
  t.regex((await n.failure('image', { operation: 'resize', content: b64(await png(10, 10)) })).message, /width or config\.height is required/);
  t.is((await n.failure('image', { operation: 'blur', content: 'AAAA' })).type, 'BAD_CONFIG');
});

test('run standalone (the editor\'s run-node: no run id), nothing is stored and the result comes inline', async (t) => {
  const listed = async () => {
    const keys: string[] = [];
    for await (const o of n.objects.list('workflows/artifacts/e-1/')) keys.push(o.key);
    return keys.sort();
  };
  const before = await listed();
  const r = await n.exec('image', { operation: 'resize', content: b64(await png(20, 20)), width: 5, format: 'png' }, null, { run_id: '' });
  t.is(r.output.artifact, null);
  t.deepEqual(r.artifacts, []);
  t.like(await sharp(Buffer.from(r.output.content, 'base64')).metadata(), { width: 5, height: 5 });
  t.deepEqual(await listed(), before);
});
