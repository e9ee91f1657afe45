import sharp from 'sharp';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';
import { inputArgs, render } from '../media/lib/av.ts';
import type { AvWork } from '../media/lib/av-step.ts';
import type { MediaArtifact } from '../media/lib/artifacts.ts';
import { MAX_INLINE_OUTPUT_BYTES } from '../media/lib/step.ts';

/** Still frames of a video, each stored as an image artifact. */

export const MAX_FRAMES = 20;

export interface FramesConfig {
  times?: number[] | null;
  count?: number;
  frame_format?: 'png' | 'jpeg';
  width?: number | null;
  inline?: boolean;
}

/** The moments to take: `times` as given, or `count` spread evenly over the duration (the middle of each equal part). */
export function momentsOf(config: FramesConfig, duration: number | null): number[] {
  if (config.times?.length) {
    const late = duration === null ? undefined : config.times.find((s) => s >= duration);
    if (late !== undefined) throw new NodeStepError(`config.times: ${late} s is at or past the end of the ${duration} s video.`, 'BAD_INPUT');
    return config.times;
  }
  const count = config.count ?? 1;
  if (duration === null) {
    if (count > 1) throw new NodeStepError('The video has no known duration: give config.times instead of config.count.', 'BAD_INPUT');
    return [0];
  }
  return Array.from({ length: count }, (_, i) => Math.round(((duration * (i + 0.5)) / count) * 1000) / 1000);
}

export async function takeFrames(work: AvWork, config: FramesConfig): Promise<{ output: Record<string, unknown>; artifacts: MediaArtifact[] }> {
  const { step, input, facts, dir } = work;
  if (!facts.has_video) throw new NodeStepError('The file has no video stream.', 'BAD_INPUT');
  const format = config.frame_format ?? 'png';
  const frames: { time: number; width: number; height: number; artifact: MediaArtifact | null; content?: string }[] = [];
  let inlineBytes = 0;
  for (const [i, time] of momentsOf(config, facts.duration).entries()) {
    const scale = config.width ? ['-vf', `scale=${config.width}:-2`] : [];
    const args = [...inputArgs(input, ['-ss', String(time)]), '-map', '0:v:0', '-frames:v', '1', '-an', '-sn', '-dn', ...scale, '-c:v', format === 'png' ? 'png' : 'mjpeg', '-f', 'image2'];
    const bytes = await render(args, dir, `frame-${i}.${format === 'png' ? 'png' : 'jpg'}`, step.limits);
    const meta = await sharp(bytes).metadata();
    const artifact = await step.store(bytes, format === 'png' ? 'image/png' : 'image/jpeg', format === 'png' ? 'png' : 'jpg');
    const frame = { time, width: meta.width ?? 0, height: meta.height ?? 0, artifact };
    if (artifact && !config.inline) frames.push(frame);
    else {
      // inline asked, or standalone (the editor: nothing stored): the frames come as base64, together within the inline cap
      inlineBytes += bytes.length;
      if (inlineBytes > MAX_INLINE_OUTPUT_BYTES) throw new NodeStepError(`The frames are over ${MAX_INLINE_OUTPUT_BYTES} bytes together, the most given inline${artifact ? ' (use their artifacts instead)' : ': run the step in a workflow'}.`, 'FILE_TOO_LARGE');
      frames.push({ ...frame, content: bytes.toString('base64') });
    }
  }
  return step.answer({ operation: 'frames', format, count: frames.length, frames, source: { container: facts.container, duration: facts.duration } });
}
