import { Agent, request } from 'node:http';
import { percentile } from './stats.ts';

/**
 * Sustained task moves: `connections` workers, each owning its own tasks, each move a legal
 * one (in_progress <-> on_hold), so no two workers ever race on a task. Keep-alive HTTP from
 * this process.
 */
export interface MoveWindow {
  movesPerSec: number;
  ok: number;
  failed: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  firstFailure?: string;
}

const NEXT: Record<string, string> = { in_progress: 'on_hold', on_hold: 'in_progress' };

function post(agent: Agent, base: URL, path: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: base.hostname, port: base.port, path, method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Authorization: `Bearer ${token}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function runMoves(apiUrl: string, token: string, tasks: { id: string; status: string }[], opts: { connections: number; durationSec: number }): Promise<MoveWindow> {
  const base = new URL(apiUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const deadline = performance.now() + opts.durationSec * 1000;
  const started = performance.now();
  const worker = async (own: { id: string; status: string }[]) => {
    for (let i = 0; performance.now() < deadline; i = (i + 1) % own.length) {
      const task = own[i];
      const to = NEXT[task.status];
      const t0 = performance.now();
      const res = await post(agent, base, `/api/v1/tasks/${task.id}/move`, token, JSON.stringify({ status: to }));
      latencies.push(performance.now() - t0);
      if (res.status === 200) {
        ok++;
        task.status = to;
      } else {
        failed++;
        firstFailure ??= `${res.status} ${res.text.slice(0, 300)}`;
      }
    }
  };
  const shares = Array.from({ length: opts.connections }, (_, w) => tasks.filter((_, i) => i % opts.connections === w));
  await Promise.all(shares.map(worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    movesPerSec: ok / elapsed,
    ok,
    failed,
    latencyP50Ms: latencies.length ? percentile(latencies, 50) : 0,
    latencyP99Ms: latencies.length ? percentile(latencies, 99) : 0,
    firstFailure,
  };
}
