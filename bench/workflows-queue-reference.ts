/**
 * The reference for bench/workflows-queue.ts, run in the same process and database right
 * after the engine: a bare bull + pg loop with no engine code and the same commit pattern
 * (a claim, then five steps each committed as ONE prepared statement that inserts the receipt
 * and updates the run). Its runs/s, measured under the same machine load, is what the
 * engine's figure is compared with.
 */
import { createRequire } from 'node:module';
import { BullJobQueue } from '../kernel/queue/bull.ts';

type Client = { query(q: string | { name: string; text: string; values: unknown[] }, values?: unknown[]): Promise<unknown>; release(): void };
type Pool = { query(text: string, values?: unknown[]): Promise<unknown>; connect(): Promise<Client>; end(): Promise<void> };
/** pg ships no type declarations here; the few calls used are typed above */
const pg = createRequire(import.meta.url)('pg') as { Pool: new (opts: { connectionString: string; max: number }) => Pool };

export async function referenceLoop(dbUrl: string, redisUrl: string, prefix: string, runs: number, concurrency: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: dbUrl, max: concurrency + 1 });
  const queue = new BullJobQueue({ redisUrl, prefix });
  try {
    await pool.query('CREATE TABLE IF NOT EXISTS ref_runs (id uuid PRIMARY KEY, status text NOT NULL, seq int NOT NULL DEFAULT 0, lease_owner text)');
    await pool.query('CREATE TABLE IF NOT EXISTS ref_receipts (run_id uuid NOT NULL, step_id text NOT NULL, output jsonb, PRIMARY KEY (run_id, step_id))');
    const ids: string[] = [];
    for (let i = 0; i < runs; i++) ids.push(crypto.randomUUID());
    for (let i = 0; i < runs; i += 500) {
      const batch = ids.slice(i, i + 500);
      await pool.query("INSERT INTO ref_runs (id, status) SELECT unnest($1::uuid[]), 'pending'", [batch]);
      await Promise.all(batch.map((id) => queue.enqueue('work', { name: 'ref', id })));
    }
    let done = 0;
    let finished!: () => void;
    const all = new Promise<void>((resolve) => (finished = resolve));
    const t0 = performance.now();
    queue.process('work', concurrency, async (job) => {
      const client = await pool.connect();
      try {
        await client.query({ name: 'claim', text: "UPDATE ref_runs SET status = 'running', lease_owner = 'ref' WHERE id = $1 AND status = 'pending'", values: [job.id] });
        for (let step = 0; step < 5; step++) {
          await client.query({
            name: 'commit',
            text: `WITH r AS (INSERT INTO ref_receipts (run_id, step_id, output) VALUES ($1, $2, $3::jsonb))
                   UPDATE ref_runs SET seq = seq + 1, status = CASE WHEN $4 THEN 'completed' ELSE status END WHERE id = $1`,
            values: [job.id, `s${step}`, JSON.stringify({ step, n: step }), step === 4],
          });
        }
      } finally {
        client.release();
      }
      if (++done === runs) finished();
    });
    await all;
    return runs / ((performance.now() - t0) / 1000);
  } finally {
    await queue.drain(5000).catch(() => undefined);
    await queue.close();
    await pool.end();
  }
}
