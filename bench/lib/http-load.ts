import { createRequire } from 'node:module';

/** The part of autocannon's result the benches read (the package ships no types). */
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; average: number };
}

type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadWindow {
  /** completed 2xx responses per second over the window */
  reqPerSec: number;
  ok: number;
  non2xx: number;
  errors: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

/** One window of keep-alive GET load from this process. */
export async function runLoad(url: string, opts: { connections: number; durationSec: number; headers?: Record<string, string> }): Promise<LoadWindow> {
  const result = await autocannon({ url, connections: opts.connections, duration: opts.durationSec, pipelining: 1, headers: opts.headers });
  return {
    reqPerSec: result['2xx'] / result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
  };
}
