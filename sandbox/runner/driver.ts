import type { SandboxDialect, SandboxLanguage } from '../../kernel/sandbox-contract.ts';

/** Why a run's signal was aborted: the runner's wall clock, or a cancel. */
export type StopReason = 'time_limit' | 'cancelled';

/** One run as the runner hands it to a driver: limits resolved, input already serialised and checked. */
export interface DriverRun {
  language: SandboxLanguage;
  code: string;
  inputJson: string;
  dialect: SandboxDialect;
  timeoutMs: number;
  memoryMb: number;
  maxOutputBytes: number;
  /** aborts with a StopReason; the driver stops the code at once */
  signal: AbortSignal;
  /** whose code it is (warm isolates are never shared between owners) */
  owner: string;
}

/** What a driver answers: the result (a JSON value within the output cap) and the console lines. */
export interface DriverOutcome {
  result: unknown;
  logs: string[];
}

/** A way of running code: isolated-vm for JavaScript, containers for the rest. Failures are SANDBOX_ERR errors. */
export interface SandboxDriver {
  readonly languages: readonly SandboxLanguage[];
  run(run: DriverRun): Promise<DriverOutcome>;
  close(): Promise<void>;
}
