import { stat, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeStepError } from '../../../kernel/nodes/step-error.ts';
import { INPUT_GUARD, runTool, type ProcessLimits } from './ffmpeg.ts';
import { playlistRefusal, sniffKind } from './kinds.ts';

/**
 * Audio and video files as the `audio` and `video` nodes read them: the container told by its
 * bytes and given to ffmpeg as its demuxer (`-f`), so ffmpeg never guesses one from the
 * content and a playlist, concat list or anything not listed is refused before a tool runs.
 */

/** file-type extension -> ffmpeg demuxer */
const DEMUXERS: Record<string, string> = {
  mp4: 'mov', m4a: 'mov', m4v: 'mov', m4b: 'mov', mov: 'mov', '3gp': 'mov', '3g2': 'mov', f4v: 'mov', f4a: 'mov',
  webm: 'matroska', mkv: 'matroska', mka: 'matroska',
  ogg: 'ogg', oga: 'ogg', ogv: 'ogg', opus: 'ogg', ogm: 'ogg', spx: 'ogg',
  mp3: 'mp3', mp2: 'mp3', wav: 'wav', flac: 'flac', aac: 'aac', aif: 'aiff', amr: 'amr',
  avi: 'avi', mts: 'mpegts', mpg: 'mpeg', asf: 'asf', wma: 'asf', wmv: 'asf', gif: 'gif',
};

export interface AvInput {
  /** the input file in the step's temp dir */
  path: string;
  demuxer: string;
  media_type: string;
  size: number;
}

/** Writes the bytes into `dir` once they are known to be an audio or video container ffmpeg is given by name. */
export async function prepareInput(bytes: Buffer, dir: string, name = 'input'): Promise<AvInput> {
  const sniffed = await sniffKind(bytes);
  if (sniffed.playlist) throw new NodeStepError(playlistRefusal(sniffed.playlist), 'BAD_FILE');
  const demuxer = DEMUXERS[sniffed.extension];
  if (!demuxer || (sniffed.kind !== 'audio' && sniffed.kind !== 'video' && sniffed.extension !== 'gif')) {
    throw new NodeStepError(`The file is ${sniffed.media_type} (${sniffed.kind}), not an audio or video file this node reads.`, 'BAD_FILE');
  }
  const path = join(dir, `${name}.${sniffed.extension}`);
  await writeFile(path, bytes, { mode: 0o600 });
  return { path, demuxer, media_type: sniffed.media_type, size: bytes.length };
}

/** The input options and `-i` of an ffmpeg or ffprobe call reading `input`. */
export function inputArgs(input: AvInput, before: string[] = []): string[] {
  return [...INPUT_GUARD, ...before, '-f', input.demuxer, '-i', input.path];
}

export interface StreamFacts {
  index: number;
  type: string;
  codec: string | null;
  duration: number | null;
  width?: number;
  height?: number;
  fps?: number | null;
  sample_rate?: number | null;
  channels?: number | null;
  channel_layout?: string | null;
}

export interface AvFacts {
  container: string;
  media_type: string;
  duration: number | null;
  bit_rate: number | null;
  size: number;
  has_video: boolean;
  has_audio: boolean;
  streams: StreamFacts[];
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : null;
};

function rate(v: unknown): number | null {
  const [a, b] = String(v ?? '').split('/').map(Number);
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? Math.round((a / b) * 1000) / 1000 : null;
}

const MAX_STREAMS = 16;

/** What ffprobe says of the input, cut to a JSON-sized summary (no tags, at most MAX_STREAMS streams). */
export async function probe(input: AvInput, dir: string, limits: ProcessLimits): Promise<AvFacts> {
  const text = await runTool('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', ...inputArgs(input)], dir, limits);
  let parsed: { format?: Record<string, unknown>; streams?: Record<string, unknown>[] };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new NodeStepError('ffprobe gave no readable answer for the file.', 'BAD_FILE');
  }
  const all = (parsed.streams ?? []).map((s): StreamFacts => {
    const type = String(s.codec_type ?? 'unknown');
    const base: StreamFacts = { index: Number(s.index ?? 0), type, codec: typeof s.codec_name === 'string' ? s.codec_name : null, duration: num(s.duration) };
    if (type === 'video') return { ...base, width: Number(s.width ?? 0), height: Number(s.height ?? 0), fps: rate(s.avg_frame_rate) ?? rate(s.r_frame_rate) };
    if (type === 'audio') return { ...base, sample_rate: num(s.sample_rate), channels: num(s.channels), channel_layout: typeof s.channel_layout === 'string' ? s.channel_layout : null };
    return base;
  });
  const attachedPicture = (i: number) => Boolean(((parsed.streams ?? [])[i]?.disposition as Record<string, unknown> | undefined)?.attached_pic);
  const format = parsed.format ?? {};
  return {
    container: String(format.format_name ?? input.demuxer),
    media_type: input.media_type,
    duration: num(format.duration),
    bit_rate: num(format.bit_rate),
    size: input.size,
    has_video: all.some((s, i) => s.type === 'video' && !attachedPicture(i)),
    has_audio: all.some((s) => s.type === 'audio'),
    streams: all.slice(0, MAX_STREAMS),
  };
}

/** Largest file a media step writes; ffmpeg stops at it (`-fs`) and the step fails. */
export const MAX_OUTPUT_BYTES = 50 * 1024 * 1024;

/** Runs ffmpeg writing `output` (a name in dir) and answers its bytes. */
export async function render(args: string[], dir: string, output: string, limits: ProcessLimits): Promise<Buffer> {
  const path = join(dir, output);
  await runTool('ffmpeg', ['-nostdin', '-y', '-v', 'error', ...args, '-fs', String(MAX_OUTPUT_BYTES), path], dir, limits);
  const size = await stat(path).then((s) => s.size, () => 0);
  if (size === 0) throw new NodeStepError('ffmpeg wrote nothing: the input has no stream this operation can use.', 'BAD_FILE');
  if (size >= MAX_OUTPUT_BYTES) throw new NodeStepError(`The result reached ${MAX_OUTPUT_BYTES} bytes, the most a media step writes.`, 'FILE_TOO_LARGE');
  return readFile(path);
}
