import Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import type { DriverOutcome, DriverRun, SandboxDriver, StopReason } from '../driver.ts';
import { SANDBOX_ERR } from '../errors.ts';
import { checkedLogs, readEnvelope, stopError } from '../outcome.ts';
import { MAX_ARGUMENT_BYTES, programFor } from './programs.ts';

export interface DockerOptions {
  /** unix:///var/run/docker.sock or tcp://host:port */
  host: string;
  images: Record<'python' | 'shell', string>;
  pidsLimit: number;
  /** the longest a run may take (SANDBOX_TIMEOUT_SECONDS): a sandbox container older than that, and a minute, is an orphan */
  maxRunMs: number;
}

/** How often the engine is swept for orphans (containers of a sandbox node that died mid-run). */
const SWEEP_EVERY_MS = 60_000;

/** Bytes of stdout or stderr kept beyond the output limit before the container is stopped. */
const STREAM_SLACK_BYTES = 256 * 1024;

/** `SANDBOX_DOCKER_HOST` as dockerode's connection options. */
export function dockerConnection(host: string): Docker.DockerOptions {
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  const url = new URL(host.replace(/^tcp:/, 'http:'));
  return { protocol: url.protocol === 'https:' ? 'https' : 'http', host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 2376 : 2375)) };
}

/**
 * Other languages in a container per run, on a configured Docker engine: no network
 * (`--network none`), memory and swap capped, a pid limit, a read-only root with a small
 * noexec /tmp, every capability dropped, no new privileges, user nobody. The code and input
 * go in on stdin (a shell script as its `-c` argument), the answer comes out on stdout. The
 * container is removed whatever happens; images are never pulled.
 */
export class DockerDriver implements SandboxDriver {
  readonly languages = ['python', 'shell'] as const;
  private readonly docker: Docker;
  private sweptAt = 0;

  constructor(private readonly opts: DockerOptions) {
    this.docker = new Docker(dockerConnection(opts.host));
  }

  async run(run: DriverRun): Promise<DriverOutcome> {
    this.sweep();
    const language = run.language as 'python' | 'shell';
    if (language === 'shell' && Buffer.byteLength(run.code) > MAX_ARGUMENT_BYTES) {
      throw SANDBOX_ERR.SYNTAX(`A shell script may be at most ${MAX_ARGUMENT_BYTES} bytes.`, { field: 'code' });
    }
    const program = programFor(language, run.code, run.inputJson);
    const container = await this.create(language, program.cmd, run.memoryMb);
    const stop = (): void => void container.kill().catch(() => undefined);
    run.signal.addEventListener('abort', stop, { once: true });
    try {
      // the limit may have passed while the container was being created
      if (run.signal.aborted) throw stopError(run.signal.reason as StopReason, run);
      const stream = await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true });
      const cap = run.maxOutputBytes + STREAM_SLACK_BYTES;
      const stdout = collect(cap, stop);
      const stderr = collect(cap, stop);
      container.modem.demuxStream(stream, stdout.sink, stderr.sink);
      await container.start();
      if (run.signal.aborted) stop();
      stream.end(program.stdin);
      const exit = (await container.wait()) as { StatusCode: number };
      if (run.signal.aborted) throw stopError(run.signal.reason as StopReason, run);
      const state = (await container.inspect()).State;
      if (state.OOMKilled) throw memoryError(run);
      if (stdout.overflow || stderr.overflow) {
        throw SANDBOX_ERR.OUTPUT_TOO_LARGE(`The code wrote more than the ${run.maxOutputBytes} bytes a run may answer.`, { limit_bytes: run.maxOutputBytes });
      }
      const logs = checkedLogs(stderr.text().split('\n').filter(Boolean));
      if (program.envelope) {
        const answer = stdout.text();
        if (!answer.trim()) throw SANDBOX_ERR.RUNTIME(`The interpreter exited with status ${exit.StatusCode} without an answer.${logs.length ? ` ${logs.at(-1)}` : ''}`, { exit_code: exit.StatusCode, logs });
        return readEnvelope(answer, run);
      }
      if (exit.StatusCode !== 0) throw SANDBOX_ERR.RUNTIME(`The script exited with status ${exit.StatusCode}.${logs.length ? ` ${logs.at(-1)}` : ''}`, { exit_code: exit.StatusCode, logs });
      return { result: { exit_code: 0, stdout: stdout.text() }, logs };
    } catch (err) {
      if (run.signal.aborted) throw stopError(run.signal.reason as StopReason, run);
      if ((err as { type?: unknown }).type && String((err as { type: unknown }).type).startsWith('SANDBOX_ERR_')) throw err;
      throw SANDBOX_ERR.CONTAINER(`The container engine failed: ${String((err as Error).message ?? err).slice(0, 500)}`);
    } finally {
      run.signal.removeEventListener('abort', stop);
      await container.remove({ force: true }).catch(() => undefined);
    }
  }

  private async create(language: 'python' | 'shell', cmd: string[], memoryMb: number): Promise<Docker.Container> {
    const bytes = memoryMb * 1024 * 1024;
    try {
      return await this.docker.createContainer({
        Image: this.opts.images[language],
        Cmd: cmd,
        Env: [],
        User: '65534:65534',
        WorkingDir: '/tmp',
        AttachStdin: true,
        OpenStdin: true,
        StdinOnce: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        NetworkDisabled: true,
        Labels: { 'wao.sandbox': language },
        HostConfig: {
          NetworkMode: 'none',
          Memory: bytes,
          MemorySwap: bytes,
          PidsLimit: this.opts.pidsLimit,
          ReadonlyRootfs: true,
          Tmpfs: { '/tmp': 'rw,noexec,nosuid,size=16m' },
          CapDrop: ['ALL'],
          SecurityOpt: ['no-new-privileges'],
          NanoCpus: 1_000_000_000,
        },
      });
    } catch (err) {
      const e = err as { statusCode?: number; message?: string };
      if (e.statusCode === 404) throw SANDBOX_ERR.CONTAINER(`The image '${this.opts.images[language]}' for ${language} is not on the Docker engine (it is never pulled: docker pull it there).`);
      throw SANDBOX_ERR.CONTAINER(`The container engine failed: ${String(e.message ?? err).slice(0, 500)}`);
    }
  }

  /**
   * Removes sandbox containers older than any run may live: those a node left behind when it
   * died mid-run (a live run's container is removed by its own run). At most once a minute.
   */
  private sweep(): void {
    const now = Date.now();
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    const cutoff = (now - this.opts.maxRunMs - 60_000) / 1000;
    void this.docker
      .listContainers({ all: true, filters: { label: ['wao.sandbox'] } })
      .then((found) => Promise.all(found.filter((c) => c.Created < cutoff).map((c) => this.docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined))))
      .catch(() => undefined);
  }

  async close(): Promise<void> {}
}

function memoryError(run: DriverRun): unknown {
  return SANDBOX_ERR.MEMORY_LIMIT(`The code used more than its ${run.memoryMb} MB of memory.`, { limit_mb: run.memoryMb });
}

/** A stream sink keeping at most `cap` bytes; past it, `onOverflow` stops the container. */
function collect(cap: number, onOverflow: () => void): { sink: PassThrough; overflow: boolean; text(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  const state = {
    sink: new PassThrough(),
    overflow: false,
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
  state.sink.on('data', (chunk: Buffer) => {
    if (state.overflow) return;
    size += chunk.length;
    if (size > cap) {
      state.overflow = true;
      onOverflow();
      return;
    }
    chunks.push(chunk);
  });
  return state;
}
