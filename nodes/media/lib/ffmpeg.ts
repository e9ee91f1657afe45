import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeStepError } from '../../../kernel/nodes/step-error.ts';
import { interrupted, Slots } from './slots.ts';

/**
 * Runs Debian's `ffmpeg` / `ffprobe` (from PATH) as child processes: arguments as an array (no
 * shell), the working directory a private temp dir, and the process SIGKILLed when the step's
 * deadline passes or its run is cancelled. The callers build every argument themselves and add
 * INPUT_GUARD before `-i`, so a file can only make the tool read itself.
 */

/** Without config.timeout a media process still stops after this many seconds. */
export const MAX_PROCESS_SECONDS = 300;

/** Input options on every call: local files and pipes only, no external data references, a pixel cap for decoders. */
export const MAX_DECODED_PIXELS = 40_000_000;
export const INPUT_GUARD = ['-protocol_whitelist', 'file,pipe', '-max_pixels', String(MAX_DECODED_PIXELS)];

/** When a step must stop: its run's cancel signal and an absolute deadline (performance.now() ms). */
export interface ProcessLimits {
  signal: AbortSignal;
  deadline: number;
  timeoutSeconds: number | null;
}

export function limitsFor(signal: AbortSignal, timeoutSeconds: number | null, started = performance.now()): ProcessLimits {
  return { signal, timeoutSeconds, deadline: started + (timeoutSeconds ?? MAX_PROCESS_SECONDS) * 1000 };
}

/** A private temp dir for one step's files, removed afterwards whatever happens. */
export async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'wao-media-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const MAX_STDOUT_BYTES = 4 * 1024 * 1024;

/** ffmpeg/ffprobe processes running at once in this process: one per CPU core. */
export const toolSlots = new Slots(Math.max(1, availableParallelism()));

/** What the tool said on stderr, last lines only, with the temp dir's path taken out. */
function reasonOf(stderr: string, dir: string): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.split(dir).join('').trim()).filter(Boolean);
  return lines.slice(-3).join(' / ').slice(0, 500) || 'no message';
}

/** Runs `tool args` in `dir` once a slot is free; answers its stdout. A non-zero exit fails the step with BAD_FILE and the tool's reason. */
export async function runTool(tool: 'ffmpeg' | 'ffprobe', args: string[], dir: string, limits: ProcessLimits): Promise<string> {
  const release = await toolSlots.acquire(limits.signal, limits.deadline, (why) => (why === 'abort' ? interrupted(limits.signal) : timeoutError(limits)));
  try {
    return await spawnTool(tool, args, dir, limits);
  } finally {
    release();
  }
}

function spawnTool(tool: 'ffmpeg' | 'ffprobe', args: string[], dir: string, limits: ProcessLimits): Promise<string> {
  if (limits.signal.aborted) return Promise.reject(interrupted(limits.signal));
  const remaining = limits.deadline - performance.now();
  if (remaining <= 0) return Promise.reject(timeoutError(limits));
  return new Promise((resolve, reject) => {
    const child = spawn(tool, ['-hide_banner', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    let stdout = '';
    let stderr = '';
    let stopped: Error | undefined;
    const stop = (why: Error) => {
      stopped ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(timeoutError(limits)), remaining);
    const onAbort = () => stop(interrupted(limits.signal));
    limits.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.length > MAX_STDOUT_BYTES) stop(new NodeStepError(`${tool} said more than ${MAX_STDOUT_BYTES} bytes.`, 'BAD_FILE'));
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-8192);
    });
    const done = () => {
      clearTimeout(timer);
      limits.signal.removeEventListener('abort', onAbort);
    };
    child.on('error', (err: NodeJS.ErrnoException) => {
      done();
      reject(err.code === 'ENOENT' ? new NodeStepError(`${tool} is not installed on this node (Debian package ffmpeg).`, 'MEDIA_TOOL_MISSING') : err);
    });
    child.on('close', (code) => {
      done();
      if (stopped) reject(stopped);
      else if (code !== 0) reject(new NodeStepError(`${tool} could not read or write the media: ${reasonOf(stderr, dir)}`, 'BAD_FILE'));
      else resolve(stdout);
    });
  });
}

function timeoutError(limits: ProcessLimits): NodeStepError {
  return new NodeStepError(`The step did not finish within its timeout of ${limits.timeoutSeconds ?? MAX_PROCESS_SECONDS} s.`, 'STEP_TIMEOUT');
}
