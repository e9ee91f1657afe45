import { randomUUID } from 'node:crypto';
import { SANDBOX_ERR } from './errors.ts';
import type { DriverRun, SandboxDriver, StopReason } from './driver.ts';
import { RunGate } from './gate.ts';
import { runTimeoutMs, type SandboxLimits } from './limits.ts';
import { stopError } from './outcome.ts';
import { CONTAINER_LANGUAGES, type SandboxLanguage, type SandboxRunParams, type SandboxRunResult, type SandboxStatus } from '../../kernel/sandbox-contract.ts';

/**
 * The sandbox of one node: picks the driver for the language, checks the input against its
 * cap, queues the run behind SANDBOX_CONCURRENCY, stops it at its time limit or on a cancel,
 * and checks the result against the output cap.
 */
export class SandboxRunner {
  private readonly gate: RunGate;
  private readonly executions = new Map<string, Set<AbortController>>();
  private readonly byLanguage = new Map<SandboxLanguage, SandboxDriver>();

  constructor(private readonly limits: SandboxLimits, private readonly drivers: SandboxDriver[]) {
    this.gate = new RunGate(limits.concurrency);
    for (const d of drivers) for (const l of d.languages) if (!this.byLanguage.has(l)) this.byLanguage.set(l, d);
  }

  languages(): SandboxLanguage[] {
    return [...this.byLanguage.keys()];
  }

  /** What this node offers and is doing: its languages, runs running and waiting. */
  status(): SandboxStatus {
    return { languages: this.languages(), ...this.gate.load() };
  }

  async run(params: SandboxRunParams): Promise<SandboxRunResult> {
    const language = params.language ?? 'javascript';
    const driver = this.byLanguage.get(language);
    if (!driver) {
      const why = CONTAINER_LANGUAGES.includes(language) ? ' It runs in a container, and this deployment has no Docker engine configured (SANDBOX_DOCKER_HOST).' : '';
      throw SANDBOX_ERR.LANGUAGE_UNAVAILABLE(`No sandbox for '${language}' is configured.${why} Available: ${this.languages().join(', ')}.`, { field: 'language', available: this.languages() });
    }
    const inputJson = JSON.stringify(params.input ?? null) ?? 'null';
    const inputBytes = Buffer.byteLength(inputJson);
    if (inputBytes > this.limits.maxInputBytes) {
      throw SANDBOX_ERR.INPUT_TOO_LARGE(`The input is ${inputBytes} bytes as JSON; a run takes at most ${this.limits.maxInputBytes}.`, { field: 'input', limit_bytes: this.limits.maxInputBytes });
    }
    const timeoutMs = runTimeoutMs(this.limits, params.timeout_ms);
    const controller = new AbortController();
    const executionId = params.execution_id ?? randomUUID();
    this.track(executionId, controller);
    let timer: NodeJS.Timeout | undefined;
    try {
      await this.gate.enter(controller.signal).catch((reason: unknown) => {
        throw typeof reason === 'string' ? stopError(reason as StopReason, { timeoutMs }) : reason;
      });
      try {
        const started = performance.now();
        timer = setTimeout(() => controller.abort('time_limit' satisfies StopReason), timeoutMs);
        const run: DriverRun = {
          language, code: params.code, inputJson, dialect: params.dialect ?? 'plain', timeoutMs, memoryMb: this.limits.memoryMb,
          maxOutputBytes: this.limits.maxOutputBytes, signal: controller.signal, owner: params.entity_id ?? '',
        };
        const outcome = await driver.run(run);
        const resultBytes = Buffer.byteLength(JSON.stringify(outcome.result) ?? 'null');
        if (resultBytes > this.limits.maxOutputBytes) {
          throw SANDBOX_ERR.OUTPUT_TOO_LARGE(`The result is ${resultBytes} bytes as JSON; a run may answer at most ${this.limits.maxOutputBytes}.`, { limit_bytes: this.limits.maxOutputBytes, logs: outcome.logs });
        }
        return { language, result: outcome.result, logs: outcome.logs, duration_ms: Math.round((performance.now() - started) * 1000) / 1000 };
      } finally {
        this.gate.leave();
      }
    } finally {
      clearTimeout(timer);
      this.untrack(executionId, controller);
    }
  }

  /** Stops every run of this execution id on this node (a cancel broadcast reaches every node). */
  cancel(executionId: string): number {
    const found = this.executions.get(executionId);
    for (const c of found ?? []) c.abort('cancelled' satisfies StopReason);
    return found?.size ?? 0;
  }

  async close(): Promise<void> {
    for (const set of this.executions.values()) for (const c of set) c.abort('cancelled' satisfies StopReason);
    await Promise.all(this.drivers.map((d) => d.close()));
  }

  private track(id: string, c: AbortController): void {
    const set = this.executions.get(id) ?? new Set();
    set.add(c);
    this.executions.set(id, set);
  }

  private untrack(id: string, c: AbortController): void {
    const set = this.executions.get(id);
    set?.delete(c);
    if (set && set.size === 0) this.executions.delete(id);
  }
}
