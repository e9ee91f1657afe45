import test from 'ava';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import video from '../index.ts';
import { startMediaBroker } from '../../media/test/helpers/media-broker.ts';
import { b64, generate } from '../../media/test/helpers/generate.ts';
import { eventually } from '../../../test/helpers/eventually.ts';

let n: Awaited<ReturnType<typeof startMediaBroker>>;
const clip = generate('testsrc=size=160x120:rate=10:duration=3', ['-f', 'lavfi', '-i', 'sine=duration=3', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'], 'mp4');
// this process's media temp dirs go here, so a test can see them come and go
const scratch = mkdtempSync(join(tmpdir(), 'video-test-tmp-'));
process.env.TMPDIR = scratch;

test.before(async () => {
  n = await startMediaBroker([video]);
});
test.after.always(async () => {
  await n?.close();
  rmSync(scratch, { recursive: true, force: true });
});

test('metadata: duration, the video and audio streams', async (t) => {
  const r = await n.exec('video', { operation: 'metadata', content: b64(clip) });
  t.like(r.output, { operation: 'metadata', media_type: 'video/mp4', has_video: true, has_audio: true });
  t.true(Math.abs(r.output.duration - 3) < 0.2);
  t.like(r.output.streams.find((s: { type: string }) => s.type === 'video'), { codec: 'h264', width: 160, height: 120, fps: 10 });
});

test('transcode to webm scaled and muted; trim keeps mp4; both stored as artifacts', async (t) => {
  const webm = await n.exec('video', { operation: 'transcode', content: b64(clip), format: 'webm', width: 80, mute: true });
  t.like(webm.output, { format: 'webm', media_type: 'video/webm' });
  t.deepEqual(webm.output.streams.map((s: { type: string; codec: string; width: number; height: number }) => [s.type, s.codec, s.width, s.height]), [['video', 'vp8', 80, 60]]);
  t.regex(webm.output.artifact.object_key, /\.webm$/);
  const trimmed = await n.exec('video', { operation: 'trim', artifact: webm.output.artifact, start: 1, duration: 1, format: 'mp4' });
  t.like(trimmed.output, { format: 'mp4', media_type: 'video/mp4', source: { container: 'matroska,webm' } });
  t.true(Math.abs(trimmed.output.duration - 1) < 0.2, String(trimmed.output.duration));
  const gif = await n.exec('video', { operation: 'trim', content: b64(clip), duration: 0.5, format: 'gif', fps: 5 });
  t.like(gif.output, { format: 'gif', media_type: 'image/gif' });
});

test('frames: at given times or spread evenly, each a stored image', async (t) => {
  const r = await n.exec('video', { operation: 'frames', content: b64(clip), times: [0, 2], width: 80, frame_format: 'jpeg' });
  t.is(r.output.count, 2);
  t.deepEqual(r.output.frames.map((f: { time: number; width: number; height: number }) => [f.time, f.width, f.height]), [[0, 80, 60], [2, 80, 60]]);
  t.is(r.artifacts.length, 2);
  const first = await n.objects.getBuffer(r.output.frames[0].artifact.object_key);
  t.like(await sharp(first!).metadata(), { format: 'jpeg', width: 80 });
  const spread = await n.exec('video', { operation: 'frames', content: b64(clip), count: 3 });
  t.deepEqual(spread.output.frames.map((f: { time: number }) => Math.round(f.time * 10) / 10), [0.5, 1.5, 2.5]);
  t.is((await n.failure('video', { operation: 'frames', content: b64(clip), times: [9] })).type, 'BAD_INPUT');
  const inline = await n.exec('video', { operation: 'frames', content: b64(clip), times: [1], inline: true });
  t.deepEqual(Buffer.from(inline.output.frames[0].content, 'base64'), await n.objects.getBuffer(inline.output.frames[0].artifact.object_key));
});

test('bad input: an audio file has no video; a playlist pointing at a URL; too many frames', async (t) => {
  const wav = generate('sine=duration=1', [], 'wav');
  const noVideo = await n.failure('video', { operation: 'frames', content: b64(wav) });
  t.is(noVideo.type, 'BAD_INPUT');
  t.regex(noVideo.message, /no video stream/);
  const hls = await n.failure('video', { operation: 'transcode', format: 'mp4', content: b64('#EXTM3U\n#EXT-X-VERSION:3\n#EXTINF:4.0,\nhttps://example.com/seg0.ts\n') });
  t.is(hls.type, 'BAD_FILE');
  t.regex(hls.message, /pointing at a URL/);
  t.regex((await n.failure('video', { operation: 'frames', content: b64(clip), count: 50 })).message, /config\.count/);
});

/** The media temp dirs of this process, and the processes running in one of them. */
const tempDirs = () => readdirSync(scratch).filter((d) => d.startsWith('wao-media-'));
function toolsRunningIn(dir: string): number[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dir);
    } catch {
      return false;
    }
  }).map(Number);
}

// long work: a 60 s clip scaled up to 1080p by x264
const longClip = generate('testsrc=size=160x120:rate=25:duration=60', ['-c:v', 'mpeg4', '-q:v', '10'], 'mp4');

test.serial('config.timeout kills ffmpeg: the step fails with STEP_TIMEOUT and leaves no process or file', async (t) => {
  const f = await n.failure('video', { operation: 'transcode', content: b64(longClip), format: 'mp4', width: 1920, timeout: 0.5 });
  t.is(f.type, 'STEP_TIMEOUT');
  t.regex(f.message, /timeout of 0.5 s/);
  t.deepEqual(tempDirs(), []);
  t.deepEqual(toolsRunningIn(scratch), []);
});

test.serial('a cancel of the run (workflows.run.interrupt) kills ffmpeg at once', async (t) => {
  const running = n.failure('video', { operation: 'transcode', content: b64(longClip), format: 'mp4', width: 1920 }, null, { run_id: 'r-cancel' });
  const dir = await eventually(async () => {
    const [d] = tempDirs();
    return d && toolsRunningIn(join(scratch, d)).length ? d : undefined;
  });
  await n.broker.emit('workflows.run.interrupt', { run_id: 'r-cancel', reason: 'cancelled by its owner' });
  const f = await running;
  t.is(f.type, 'STEP_INTERRUPTED');
  t.regex(f.message, /cancelled by its owner/);
  t.truthy(dir, 'ffmpeg was seen running');
  t.deepEqual(toolsRunningIn(join(scratch, dir ?? 'none')), []);
  t.deepEqual(tempDirs(), []);
});

test('frames run standalone (the editor) come inline; nothing is stored', async (t) => {
  const r = await n.exec('video', { operation: 'frames', content: b64(clip), times: [1], width: 32 }, null, { run_id: '' });
  t.is(r.output.frames[0].artifact, null);
  t.deepEqual(r.artifacts, []);
  t.like(await sharp(Buffer.from(r.output.frames[0].content, 'base64')).metadata(), { format: 'png', width: 32 });
});
