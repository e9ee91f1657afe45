/**
 * Cold start of `npm start` on an EMPTY data dir (embedded PGlite initdb included) until
 * /health/ready answers 200, `--runs` times (each a fresh temp DATA_DIR and free ports, the
 * process group killed after each); then one warm start re-using the last run's data dir.
 * Also reports when /health first answered (gateway up) and how long the SIGTERM shutdown took.
 *
 *   node --import tsx bench/cold-start.ts [--runs 3] [--timeout 180]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchKernel } from './lib/kernel-process.ts';
import { stopAll, stopGroup, tailOf, waitForStatus } from './lib/processes.ts';
import { median, round } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    timeout: { type: 'string', default: '180' },
  },
});
const runs = Number(args.runs);
const timeoutMs = Number(args.timeout) * 1000;
if (!(runs >= 1) || !(timeoutMs > 0)) throw new Error('--runs >= 1, --timeout > 0 (seconds)');

interface StartTiming {
  kind: 'cold' | 'warm';
  /** spawn of `npm start` until /health answered 200 (gateway listening) */
  healthS: number;
  /** spawn until /health/ready answered 200 */
  readyS: number;
  /** SIGTERM until the whole process group was gone */
  stopS: number;
}

async function timeStart(kind: 'cold' | 'warm', dataDir: string, logFile: string): Promise<StartTiming> {
  const kernel = await launchKernel({ via: 'npm', dataDir, logFile });
  try {
    // the 20 ms poll bounds the error of each figure
    const opts = { proc: kernel.proc, timeoutMs, intervalMs: 20, since: kernel.spawnedAt };
    const healthMs = await waitForStatus(`${kernel.apiUrl}/health`, 200, opts);
    const readyMs = await waitForStatus(`${kernel.apiUrl}/health/ready`, 200, opts);
    const stopMs = await stopGroup(kernel.proc, 15_000);
    return { kind, healthS: round(healthMs / 1000, 2), readyS: round(readyMs / 1000, 2), stopS: round(stopMs / 1000, 2) };
  } catch (err) {
    await stopGroup(kernel.proc, 5_000);
    throw new Error(`${kind} start failed: ${(err as Error).message}\n--- kernel log ---\n${tailOf(logFile)}`);
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-cold-'));
  try {
    const timings: StartTiming[] = [];
    let lastDataDir = '';
    for (let i = 1; i <= runs; i++) {
      lastDataDir = join(work, `data-${i}`); // does not exist yet: the kernel creates it
      const t = await timeStart('cold', lastDataDir, join(work, `kernel-${i}.log`));
      timings.push(t);
      console.log(`cold start ${i}: ready after ${t.readyS} s (/health after ${t.healthS} s; stop took ${t.stopS} s)`);
    }
    const warm = await timeStart('warm', lastDataDir, join(work, 'kernel-warm.log'));
    console.log(`warm start (data dir of run ${runs}): ready after ${warm.readyS} s (/health after ${warm.healthS} s; stop took ${warm.stopS} s)`);
    const cold = timings.map((t) => t.readyS);
    console.log(`\ncold start median ${round(median(cold), 2)} s (runs: ${cold.join(', ')} s); warm start ${warm.readyS} s`);
    console.log(
      JSON.stringify({
        bench: 'cold-start',
        coldReadyS: cold,
        coldMedianS: round(median(cold), 2),
        coldHealthS: timings.map((t) => t.healthS),
        warmReadyS: warm.readyS,
        warmHealthS: warm.healthS,
        stopS: [...timings, warm].map((t) => t.stopS),
      }),
    );
  } finally {
    await stopAll(10_000);
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench/cold-start failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
