import type ivm from 'isolated-vm';
import { SANDBOX_ERR } from '../errors.ts';
import type { DriverOutcome, DriverRun, SandboxDriver, StopReason } from '../driver.ts';
import { DIALECTS } from './dialects.ts';
import { IsolatePool, type Lease } from './pool.ts';
import { CODE_FILE, runSource } from './wrapper.ts';
import { readEnvelope, stopError } from '../outcome.ts';

/** Failures after which the isolate may serve its owner's next run (a fresh context each time). */
const KEEPS_ISOLATE = new Set(['SANDBOX_ERR_SYNTAX', 'SANDBOX_ERR_RUNTIME', 'SANDBOX_ERR_OUTPUT_NOT_JSON', 'SANDBOX_ERR_OUTPUT_TOO_LARGE']);

/**
 * JavaScript in isolated-vm: a V8 isolate of its own (heap capped at the run's memory), a fresh
 * context per run, the code compiled as an async function's body. Nothing of the host is put
 * into the context: no require, no process, no files, no network, no timers; only the input's
 * JSON text goes in and one JSON string comes out. The time limit holds for synchronous code
 * (isolated-vm's timeout) and for awaited work alike (the runner's signal disposes the isolate).
 */
export class IsolateDriver implements SandboxDriver {
  readonly languages = ['javascript'] as const;
  private readonly pool: IsolatePool;
  private readonly preludes = new WeakMap<ivm.Isolate, ivm.Script>();

  constructor(warmIsolates: number, private readonly memoryMb: number) {
    this.pool = new IsolatePool(warmIsolates, memoryMb);
  }

  async run(run: DriverRun): Promise<DriverOutcome> {
    const dialect = DIALECTS[run.dialect];
    const lease = this.pool.take(run.owner);
    const stop = (): void => {
      if (!lease.isolate.isDisposed) lease.isolate.dispose();
    };
    run.signal.addEventListener('abort', stop, { once: true });
    let context: ivm.Context | undefined;
    let keep = false;
    try {
      if (run.signal.aborted) throw stopError(run.signal.reason as StopReason, run);
      context = await lease.isolate.createContext();
      if (dialect.prelude) await (await this.prelude(lease, dialect.prelude)).run(context, { timeout: run.timeoutMs });
      const runJson = `{"max_output":${run.maxOutputBytes},"input":${run.inputJson}}`;
      const script = await this.compile(lease, runSource(run.code, dialect, runJson), { filename: CODE_FILE, lineOffset: -1 });
      const answer: unknown = await script.run(context, { timeout: run.timeoutMs, promise: true });
      const outcome = readEnvelope(answer, run);
      keep = true;
      return outcome;
    } catch (err) {
      const failure = this.failure(err, run, lease);
      // the snippet's own mistakes leave the isolate healthy (give() still checks its heap)
      keep = KEEPS_ISOLATE.has(String((failure as { type?: unknown }).type));
      throw failure;
    } finally {
      run.signal.removeEventListener('abort', stop);
      if (context && !lease.isolate.isDisposed) context.release();
      if (keep && !run.signal.aborted) this.pool.give(run.owner, lease);
      else stop();
    }
  }

  /** A dialect's library script, compiled once per isolate (a warm run only runs it in its fresh context). */
  private async prelude(lease: Lease, source: () => string): Promise<ivm.Script> {
    const known = this.preludes.get(lease.isolate);
    if (known) return known;
    const script = await lease.isolate.compileScript(source(), { filename: 'prelude.js' });
    this.preludes.set(lease.isolate, script);
    return script;
  }

  private async compile(lease: Lease, source: string, origin: { filename: string; lineOffset: number }): Promise<ivm.Script> {
    try {
      return await lease.isolate.compileScript(source, origin);
    } catch (err) {
      const message = String((err as Error).message ?? err);
      const at = /\[code\.js:(\d+):(\d+)\]/.exec(message);
      throw SANDBOX_ERR.SYNTAX(`The code does not parse: ${message.replace(/\s*\[code\.js:\d+:\d+\]$/, '')}${at ? ` (line ${at[1]}, column ${at[2]})` : ''}.`, {
        field: 'code',
        ...(at ? { line: Number(at[1]), column: Number(at[2]) } : {}),
      });
    }
  }

  /** isolated-vm's failures as the sandbox's: the signal's reason first (it disposed the isolate), then the isolate's own. */
  private failure(err: unknown, run: DriverRun, lease: Lease): unknown {
    if (run.signal.aborted) return stopError(run.signal.reason as StopReason, run);
    if ((err as { type?: unknown }).type && String((err as { type: unknown }).type).startsWith('SANDBOX_ERR_')) return err;
    const message = String((err as Error)?.message ?? err);
    if (/memory limit/i.test(message) || (lease.isolate.isDisposed && !/timed out/i.test(message))) {
      return SANDBOX_ERR.MEMORY_LIMIT(`The code used more than its ${this.memoryMb} MB of memory.`, { limit_mb: this.memoryMb });
    }
    if (/timed out/i.test(message)) return stopError('time_limit', run);
    if (/^(Range|Type|Syntax|Reference)Error: /.test(message)) return SANDBOX_ERR.RUNTIME(message.slice(0, 2000));
    return SANDBOX_ERR.RUNTIME(`The code failed: ${message.slice(0, 2000)}`);
  }

  async close(): Promise<void> {
    this.pool.close();
  }
}
