import { NodeStepError } from '../../../kernel/nodes/step-error.ts';
import { inputArgs, render, type AvFacts, type AvInput } from './av.ts';
import type { ProcessLimits } from './ffmpeg.ts';

/** The files the `audio` and `video` nodes write: formats, their encoders, and how trim and transcode call ffmpeg. */

export interface OutputFormat {
  muxer: string;
  media_type: string;
  extension: string;
  codec: string[];
}

export const AUDIO_FORMATS: Record<string, OutputFormat> = {
  mp3: { muxer: 'mp3', media_type: 'audio/mpeg', extension: 'mp3', codec: ['-c:a', 'libmp3lame'] },
  wav: { muxer: 'wav', media_type: 'audio/wav', extension: 'wav', codec: ['-c:a', 'pcm_s16le'] },
  flac: { muxer: 'flac', media_type: 'audio/flac', extension: 'flac', codec: ['-c:a', 'flac'] },
  ogg: { muxer: 'ogg', media_type: 'audio/ogg', extension: 'ogg', codec: ['-c:a', 'libvorbis'] },
  opus: { muxer: 'ogg', media_type: 'audio/opus', extension: 'opus', codec: ['-c:a', 'libopus'] },
  m4a: { muxer: 'ipod', media_type: 'audio/mp4', extension: 'm4a', codec: ['-c:a', 'aac'] },
};

export const VIDEO_FORMATS: Record<string, OutputFormat> = {
  mp4: { muxer: 'mp4', media_type: 'video/mp4', extension: 'mp4', codec: ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-movflags', '+faststart'] },
  webm: { muxer: 'webm', media_type: 'video/webm', extension: 'webm', codec: ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1M', '-c:a', 'libopus'] },
  gif: { muxer: 'gif', media_type: 'image/gif', extension: 'gif', codec: [] },
};

/** The format trim writes when none is named: the input's own where it can be written. */
export function sameFormat(kind: 'audio' | 'video', input: AvInput): string {
  const ext = input.path.slice(input.path.lastIndexOf('.') + 1);
  if (kind === 'audio') return ext in AUDIO_FORMATS ? ext : ext === 'mp4' || ext === 'm4b' ? 'm4a' : ext === 'oga' ? 'ogg' : 'wav';
  return ext in VIDEO_FORMATS ? ext : ext === 'mkv' ? 'webm' : 'mp4';
}

export interface AvOptions {
  format: string;
  /** trim: from (s) and how long (s) */
  start?: number;
  duration?: number;
  /** audio */
  bitrate_kbps?: number;
  sample_rate?: number;
  channels?: number;
  /** video */
  width?: number;
  height?: number;
  fps?: number;
  mute?: boolean;
}

/** Checks a trim window against the input's duration (when ffprobe knows it). */
export function checkWindow(facts: AvFacts, start: number, duration: number | undefined): void {
  if (facts.duration !== null && start >= facts.duration) {
    throw new NodeStepError(`config.start ${start} s is at or past the end of the ${facts.duration} s input.`, 'BAD_INPUT');
  }
  if (duration !== undefined && duration <= 0) throw new NodeStepError('config.duration must be over 0 s.', 'BAD_CONFIG');
}

function videoFilter(o: AvOptions, format: string): string[] {
  const filters: string[] = [];
  if (o.width || o.height) filters.push(`scale=${o.width ?? -2}:${o.height ?? -2}`);
  else if (format === 'mp4') filters.push('scale=trunc(iw/2)*2:trunc(ih/2)*2'); // x264 with yuv420p needs even sides
  if (o.fps) filters.push(`fps=${o.fps}`);
  return filters.length ? ['-vf', filters.join(',')] : [];
}

/** Writes the input (or its window) as `kind` in `o.format`: audio keeps the first audio stream, video the first video stream and, unless mute, the first audio one. */
export async function encode(kind: 'audio' | 'video', input: AvInput, facts: AvFacts, o: AvOptions, dir: string, limits: ProcessLimits): Promise<{ bytes: Buffer; format: OutputFormat }> {
  const format = (kind === 'audio' ? AUDIO_FORMATS : VIDEO_FORMATS)[o.format];
  if (!format) throw new NodeStepError(`config.format ${JSON.stringify(o.format)} is not a ${kind} format this node writes.`, 'BAD_CONFIG');
  if (kind === 'audio' && !facts.has_audio) throw new NodeStepError('The file has no audio stream.', 'BAD_INPUT');
  if (kind === 'video' && !facts.has_video) throw new NodeStepError('The file has no video stream.', 'BAD_INPUT');
  const window = [...(o.start ? ['-ss', String(o.start)] : [])];
  const args = [...inputArgs(input, window), ...(o.duration !== undefined ? ['-t', String(o.duration)] : [])];
  if (kind === 'audio') {
    args.push('-map', '0:a:0', '-vn', '-sn', '-dn', ...format.codec);
    if (o.bitrate_kbps && !['wav', 'flac'].includes(o.format)) args.push('-b:a', `${o.bitrate_kbps}k`);
    if (o.sample_rate) args.push('-ar', String(o.sample_rate));
    if (o.channels) args.push('-ac', String(o.channels));
  } else {
    const audio = !o.mute && facts.has_audio && o.format !== 'gif';
    args.push('-map', '0:v:0', ...(audio ? ['-map', '0:a:0'] : ['-an']), '-sn', '-dn', ...format.codec, ...videoFilter(o, o.format));
  }
  args.push('-map_metadata', '-1', '-f', format.muxer);
  const bytes = await render(args, dir, `output.${format.extension}`, limits);
  return { bytes, format };
}
