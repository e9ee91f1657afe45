/**
 * Where the engine's time goes, for benchmarks (bench/workflows-queue.ts): totals per phase
 * and, per step, the engine's own overhead (the step's wall time from "ready" to "receipt
 * committed", minus the time inside the node's execute call). Off unless a profile is set.
 */
import type { FlushStats } from '../../../kernel/db/group-commit.ts';
import type { CommitKind } from '../store/runs.ts';

export type Phase = 'claim' | 'load' | 'template' | 'execute' | 'commit';

export class EngineProfile {
  readonly totals: Record<Phase, number> = { claim: 0, load: 0, template: 0, execute: 0, commit: 0 };
  readonly counts = { runs: 0, steps: 0, commits: 0 };
  readonly overheadMs: number[] = [];
  readonly executeMs: number[] = [];
  /** the statements of the group commits: what a commit's time is made of (waiting for a slot, the round trip) */
  readonly flushes: Record<CommitKind, FlushStats[]> = { run_create: [], step_commit: [] };

  add(phase: Phase, ms: number): void {
    this.totals[phase] += ms;
    if (phase === 'commit') this.counts.commits += 1;
  }

  step(wallMs: number, executeMs: number): void {
    this.counts.steps += 1;
    this.executeMs.push(executeMs);
    this.overheadMs.push(wallMs - executeMs);
  }

  flush(kind: CommitKind, stats: FlushStats): void {
    this.flushes[kind].push(stats);
  }

  reset(): void {
    this.flushes.run_create.length = 0;
    this.flushes.step_commit.length = 0;
    for (const k of Object.keys(this.totals) as Phase[]) this.totals[k] = 0;
    this.counts.runs = this.counts.steps = this.counts.commits = 0;
    this.overheadMs.length = 0;
    this.executeMs.length = 0;
  }
}
