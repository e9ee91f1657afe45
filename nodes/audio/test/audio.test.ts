import test from 'ava';
import audio from '../index.ts';
import { startMediaBroker } from '../../media/test/helpers/media-broker.ts';
import { b64, generate } from '../../media/test/helpers/generate.ts';

let n: Awaited<ReturnType<typeof startMediaBroker>>;
const wav = generate('sine=frequency=440:duration=2:sample_rate=44100', ['-ac', '2'], 'wav');
test.before(async () => {
  n = await startMediaBroker([audio]);
});
test.after.always(() => n?.close());

test('metadata: container, duration and the audio stream, from ffprobe; nothing stored', async (t) => {
  const r = await n.exec('audio', { operation: 'metadata', content: b64(wav) });
  t.like(r.output, { operation: 'metadata', container: 'wav', media_type: 'audio/wav', duration: 2, has_audio: true, has_video: false, size: wav.length });
  t.like(r.output.streams[0], { type: 'audio', codec: 'pcm_s16le', sample_rate: 44100, channels: 2 });
  t.deepEqual(r.artifacts, []);
});

test('transcode to mp3 at 16 kHz mono: stored as an artifact, whose metadata the next step reads', async (t) => {
  const r = await n.exec('audio', { operation: 'transcode', content: b64(wav), format: 'mp3', bitrate_kbps: 32, sample_rate: 16000, channels: 1 });
  t.like(r.output, { operation: 'transcode', format: 'mp3', media_type: 'audio/mpeg', source: { container: 'wav', duration: 2 } });
  t.regex(r.output.artifact.object_key, /^workflows\/artifacts\/e-1\/r-1\/[a-f0-9]{64}\.mp3$/);
  t.deepEqual(r.artifacts, [r.output.artifact]);
  const meta = await n.exec('audio', { operation: 'metadata', artifact: r.output.artifact });
  t.like(meta.output, { container: 'mp3', media_type: 'audio/mpeg' });
  t.like(meta.output.streams[0], { codec: 'mp3', sample_rate: 16000, channels: 1 });
  t.true(Math.abs(meta.output.duration - 2) < 0.2, String(meta.output.duration));
});

test('trim keeps the window in the input\'s own format; inline gives the bytes too', async (t) => {
  const r = await n.exec('audio', { operation: 'trim', content: b64(wav), start: 0.5, duration: 1, inline: true });
  t.like(r.output, { operation: 'trim', format: 'wav', media_type: 'audio/wav', duration: 1 });
  t.deepEqual(Buffer.from(r.output.content, 'base64'), await n.objects.getBuffer(r.output.artifact.object_key));
  const toEnd = await n.exec('audio', { operation: 'trim', content: b64(wav), start: 1.5, format: 'flac' });
  t.like(toEnd.output, { format: 'flac', media_type: 'audio/flac', duration: 0.5 });
  const late = await n.failure('audio', { operation: 'trim', content: b64(wav), start: 5 });
  t.is(late.type, 'BAD_INPUT');
  t.regex(late.message, /past the end of the 2 s input/);
});

test('a playlist is refused before any tool runs, with the reason; so are an image and a damaged file', async (t) => {
  const hls = await n.failure('audio', { operation: 'metadata', content: b64('#EXTM3U\n#EXTINF:10,\nhttp://169.254.169.254/latest/meta-data\n') });
  t.is(hls.type, 'BAD_FILE');
  t.regex(hls.message, /M3U\/HLS playlist pointing at a URL: playlists and concat lists are refused/);
  const concat = await n.failure('audio', { operation: 'transcode', format: 'mp3', content: b64("ffconcat version 1.0\nfile '/etc/passwd'\n") });
  t.regex(concat.message, /ffconcat list: playlists/);
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  t.regex((await n.failure('audio', { operation: 'metadata', content: b64(png) })).message, /image\/png \(image\), not an audio or video file/);
  const damaged = Buffer.concat([wav.subarray(0, 44), Buffer.alloc(0)]);
  damaged.write('WAVEfmt ', 8, 'latin1');
  damaged.writeUInt32LE(0xffffff, 16); // a fmt chunk claiming 16 MB
  const bad = await n.failure('audio', { operation: 'transcode', format: 'mp3', content: b64(damaged) });
  t.true(['BAD_FILE', 'BAD_INPUT'].includes(bad.type), bad.message);
});

test('bad config: transcode without format, an unknown format, a negative start, both sources', async (t) => {
  t.regex((await n.failure('audio', { operation: 'transcode', content: b64(wav) })).message, /config\.format is required/);
  t.regex((await n.failure('audio', { operation: 'transcode', content: b64(wav), format: 'mid' })).message, /config\.format/);
  t.regex((await n.failure('audio', { operation: 'trim', content: b64(wav), start: -1 })).message, /config\.start/);
  t.regex((await n.failure('audio', { operation: 'metadata', content: b64(wav), artifact: 'k' })).message, /both set/);
  t.regex((await n.failure('audio', { operation: 'metadata', content: b64(wav), channels: 6 })).message, /config\.channels/);
});
