/** One component the deep check exercises for real (a query, a round trip, a put/get/delete). */
export type ComponentCheck = () => Promise<void | Record<string, unknown>>;

export interface ComponentResult {
  name: string;
  status: 'ok' | 'failed';
  duration_ms: number;
  error?: string;
  [detail: string]: unknown;
}

const DEEP_TIMEOUT_MS = 5_000;

/** Tracks readiness and runs the deep checks; the gateway turns both into /health/* answers. */
export class HealthMonitor {
  private readiness: { ready: boolean; reason: string } = { ready: false, reason: 'starting' };
  private readonly checks = new Map<string, ComponentCheck>();

  get ready(): boolean {
    return this.readiness.ready;
  }

  get reason(): string {
    return this.readiness.reason;
  }

  setReady(ready: boolean, reason: string): void {
    this.readiness = { ready, reason };
  }

  register(name: string, check: ComponentCheck): void {
    this.checks.set(name, check);
  }

  async deep(): Promise<{ ok: boolean; components: ComponentResult[] }> {
    const components = await Promise.all([...this.checks].map(([name, check]) => runCheck(name, check)));
    return { ok: components.every((c) => c.status === 'ok'), components };
  }
}

async function runCheck(name: string, check: ComponentCheck): Promise<ComponentResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      check(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${DEEP_TIMEOUT_MS} ms`)), DEEP_TIMEOUT_MS))),
    ]);
    return { name, status: 'ok', duration_ms: elapsed(started), ...(detail ?? {}) };
  } catch (err) {
    return { name, status: 'failed', duration_ms: elapsed(started), error: (err as Error).message || String(err) };
  } finally {
    clearTimeout(timer);
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
