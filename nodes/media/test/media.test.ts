import test from 'ava';
import { deflateRawSync } from 'node:zlib';
import sharp from 'sharp';
import media from '../index.ts';
import { startMediaBroker } from './helpers/media-broker.ts';
import { b64, generate } from './helpers/generate.ts';

let n: Awaited<ReturnType<typeof startMediaBroker>>;
test.before(async () => {
  n = await startMediaBroker([media]);
});
test.after.always(() => n?.close());

const branches = { image: 'on_image', audio: 'on_audio', video: 'on_video', document: 'on_document', archive: 'on_archive', text: 'on_text' };

test('an image is sniffed, stored as an artifact of the run, and takes the image branch', async (t) => {
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#00f' } }).png().toBuffer();
  const r = await n.exec('media', { content: b64(png), branches });
  t.like(r.output, { kind: 'image', media_type: 'image/png', extension: 'png', size: png.length });
  t.deepEqual(r.next, ['on_image']);
  t.regex(r.output.artifact.object_key, /^workflows\/artifacts\/e-1\/r-1\/[a-f0-9]{64}\.png$/);
  t.deepEqual(await n.objects.getBuffer(r.output.artifact.object_key), png);
  t.deepEqual(r.artifacts, [r.output.artifact]);
  const again = await n.exec('media', { artifact: r.output.artifact, branches });
  t.deepEqual(again.output.artifact, r.output.artifact);
  t.deepEqual(again.artifacts, [], 'an artifact given is not stored again');
});

test('containers holding sound or pictures are told apart by their streams: a webm of sound is audio, one with pictures video', async (t) => {
  const sound = generate('sine=duration=0.5', ['-c:a', 'libopus', '-f', 'webm'], 'webm');
  const r = await n.exec('media', { content: b64(sound), branches });
  t.like(r.output, { kind: 'audio', media_type: 'video/webm' });
  t.deepEqual(r.next, ['on_audio']);
  const moving = generate('testsrc=size=32x32:rate=5:duration=0.4', ['-c:v', 'libvpx', '-f', 'webm'], 'webm');
  t.deepEqual((await n.exec('media', { content: b64(moving), branches })).next, ['on_video']);
  t.like((await n.exec('media', { content: b64(generate('sine=duration=0.2', [], 'mp3')), branches })).output, { kind: 'audio', media_type: 'audio/mpeg' });
});

test('documents, archives, text, playlists and unknown bytes; a kind without a branch ends the path', async (t) => {
  const pdf = await n.exec('media', { content: b64('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n'), branches });
  t.like(pdf.output, { kind: 'document', media_type: 'application/pdf' });
  t.deepEqual(pdf.next, ['on_document']);
  const zipHeader = Buffer.from('504b0304140000000800', 'hex');
  const zip = Buffer.concat([zipHeader, Buffer.alloc(16), Buffer.from('a.txt'), deflateRawSync(Buffer.from('hi'))]);
  t.is((await n.exec('media', { content: b64(zip), branches })).output.kind, 'archive');
  const text = await n.exec('media', { content: b64('name,city\nada,Berlin\n'), branches });
  t.like(text.output, { kind: 'text', media_type: 'text/plain', extension: 'txt' });
  const hls = await n.exec('media', { content: b64('#EXTM3U\nhttp://10.0.0.1/a.ts\n'), branches });
  t.like(hls.output, { kind: 'text', playlist: { format: 'an M3U/HLS playlist', points_at_url: true } });
  const noise = await n.exec('media', { content: b64(Buffer.from([0, 1, 2, 3, 250, 251, 0, 9])), branches });
  t.like(noise.output, { kind: 'other', media_type: 'application/octet-stream' });
  t.deepEqual(noise.next, [], 'no branch for other: the path ends');
  t.deepEqual((await n.exec('media', { content: b64('x') })).next, []);
});

test('bad input: no source, a foreign or made-up artifact, not base64, an unknown branch', async (t) => {
  t.regex((await n.failure('media', {})).message, /config\.artifact is required/);
  t.is((await n.failure('media', { artifact: 'workflows/artifacts/e-2/r-1/' + 'a'.repeat(64) + '.png' })).type, 'BAD_INPUT');
  t.is((await n.failure('media', { artifact: 'workflows/artifacts/e-1/r-1/' + 'a'.repeat(64) + '.png' })).type, 'BAD_INPUT');
  t.is((await n.failure('media', { artifact: 'tasks/attachments/secret.pdf' })).type, 'BAD_INPUT');
  t.is((await n.failure('media', { content: '***' })).type, 'BAD_CONFIG');
  t.regex((await n.failure('media', { content: 'AAAA', branches: { movie: 'x' } })).message, /config\.branches\.movie/);
});
