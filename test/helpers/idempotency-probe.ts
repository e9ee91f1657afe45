import type { Context, ServiceSchema } from 'moleculer';

/**
 * A create route (`POST /api/v1/idem-probe`, 201) whose action the test can hold open, so a
 * second request arrives while the first still runs; `effects` counts the times it ran.
 */
export class IdempotencyProbe {
  effects = 0;
  private started?: () => void;
  private gate?: Promise<void>;

  /** holds the next call (only that one) until the returned release; `running` settles once it has begun */
  hold(): { running: Promise<void>; release(): void } {
    let release!: () => void;
    this.gate = new Promise((resolve) => (release = resolve));
    const running = new Promise<void>((resolve) => (this.started = resolve));
    return {
      running,
      release,
    };
  }

  service(): ServiceSchema {
    const probe = this;
    return {
      name: 'idem-probe',
      settings: { rest: '/idem-probe' },
      actions: {
        hold: {
          rest: 'POST /',
          params: { n: 'number' },
          response: { 201: { type: 'object' } },
          async handler(ctx: Context<{ n: number }, { $statusCode?: number }>) {
            probe.effects += 1;
            const effect = probe.effects;
            // only the one call after hold() waits
            const gate = probe.gate;
            probe.gate = undefined;
            probe.started?.();
            probe.started = undefined;
            await gate;
            ctx.meta.$statusCode = 201;
            return { id: `p-${effect}`, n: ctx.params.n };
          },
        },
      },
    };
  }
}
