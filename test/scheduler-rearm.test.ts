import test from 'ava';
import { JOBS_FIRE_DUE_ACTION, JOBS_NEXT_DUE_ACTION, JOBS_PREPARE_FIRE_ACTION } from '../kernel/jobs-contract.ts';
import { Scheduler, type SchedulerClock } from '../plugins/scheduler/scheduler.ts';

/** A clock the test moves: timers fire only when `advance` passes their instant. */
class TestClock implements SchedulerClock {
  private seq = 0;
  readonly timers = new Map<number, { at: number; fn: () => void }>();
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** the instant the earliest pending timer fires */
  get nextTimer(): number | undefined {
    const ats = [...this.timers.values()].map((x) => x.at);
    return ats.length ? Math.min(...ats) : undefined;
  }
  advance(to: number): void {
    this.t = to;
    for (const [id, timer] of [...this.timers].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at > to) continue;
      this.timers.delete(id);
      timer.fn();
    }
  }
}

/** A broker answering jobs.fireDue with nothing due, jobs.nextDue from what the test hands it, and jobs.prepareFire (counted). */
function fakeBroker() {
  const fires: number[] = [];
  const prepares: number[] = [];
  const nextDue: ((v: { next_run_at: string | null }) => void)[] = [];
  const waiters: { action: string; resolve: () => void }[] = [];
  const notify = (action: string) => {
    for (const w of waiters.filter((x) => x.action === action)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  const broker = {
    call(action: string): Promise<unknown> {
      if (action === JOBS_FIRE_DUE_ACTION) {
        fires.push(fires.length);
        notify(action);
        return Promise.resolve({ claimed: 0, claim_ms: 0, enqueue_ms: 0, more: false, runs: [] });
      }
      if (action === JOBS_PREPARE_FIRE_ACTION) {
        prepares.push(prepares.length);
        return Promise.resolve({ prepare_ms: 0 });
      }
      if (action === JOBS_NEXT_DUE_ACTION) {
        const p = new Promise((resolve) => nextDue.push(resolve as never));
        notify(action);
        return p;
      }
      return Promise.reject(new Error(`unexpected ${action}`));
    },
  };
  const called = (action: string) => new Promise<void>((resolve) => waiters.push({ action, resolve }));
  return { broker, fires, prepares, nextDue, called };
}

const logger = { warn: () => undefined, info: () => undefined, debug: () => undefined };
const T0 = Date.parse('2027-01-01T00:00:00Z');

/** A scheduler on a fake broker and a clock standing at T0 (a 60 s tick). */
function scheduler(opts: { prepareLeadMs?: number } = {}) {
  const clock = new TestClock(T0);
  const fake = fakeBroker();
  const s = new Scheduler({ broker: fake.broker as never, tickSeconds: 60, sweepSeconds: 3600, logger, clock, ...opts });
  return { clock, fake, s };
}

test('a timer armed by jobsChanged during a pass is kept when the pass read its next due time before that job was committed', async (t) => {
  const { clock, fake, s } = scheduler();
  const readStarted = fake.called(JOBS_NEXT_DUE_ACTION);
  const pass = s.pass();
  await readStarted;
  // meanwhile a job due in 5 s is committed and announced; the read in flight does not see it
  s.jobsChanged(new Date(T0 + 5000).toISOString());
  t.is(clock.nextTimer, T0 + 5000);
  fake.nextDue.shift()!({ next_run_at: null });
  await pass;
  t.is(clock.nextTimer, T0 + 5000, 'the earlier timer stays, not the 60 s tick');
  t.is(fake.fires.length, 1);
  const fired = fake.called(JOBS_FIRE_DUE_ACTION);
  const reread = fake.called(JOBS_NEXT_DUE_ACTION);
  clock.advance(T0 + 5000);
  await fired;
  t.is(fake.fires.length, 2, 'the job fires at its instant');
  await reread;
  fake.nextDue.shift()!({ next_run_at: null });
  await s.stop();
});

test('after a pass the timer goes to the next due time, capped by the tick', async (t) => {
  const { clock, fake, s } = scheduler();
  const read = fake.called(JOBS_NEXT_DUE_ACTION);
  const pass = s.pass();
  await read;
  fake.nextDue.shift()!({ next_run_at: new Date(T0 + 20_000).toISOString() });
  await pass;
  t.is(clock.nextTimer, T0 + 20_000);
  // a later change does not push the timer back; an earlier one brings it forward
  s.jobsChanged(new Date(T0 + 40_000).toISOString());
  t.is(clock.nextTimer, T0 + 20_000);
  s.jobsChanged(new Date(T0 + 10_000).toISOString());
  t.is(clock.nextTimer, T0 + 10_000);
  t.is(clock.timers.size, 1, 'one timer at a time');
  const read2 = fake.called(JOBS_NEXT_DUE_ACTION);
  clock.advance(T0 + 10_000);
  await read2;
  fake.nextDue.shift()!({ next_run_at: new Date(T0 + 3 * 3600_000).toISOString() });
  await s.stop();
  t.is(fake.fires.length, 2);
});

test('nothing due: the tick is the safety net', async (t) => {
  const { clock, fake, s } = scheduler();
  const read = fake.called(JOBS_NEXT_DUE_ACTION);
  const pass = s.pass();
  await read;
  fake.nextDue.shift()!({ next_run_at: null });
  await pass;
  t.is(clock.nextTimer, T0 + 60_000);
  await s.stop();
});

test('a due instant further away than the prepare lead is readied that long before it; a closer one and the tick are not', async (t) => {
  const { clock, fake, s } = scheduler({ prepareLeadMs: 1000 });
  const timers = () => [...clock.timers.values()].map((x) => x.at).sort((a, b) => a - b);
  s.jobsChanged(new Date(T0 + 5000).toISOString());
  t.deepEqual(timers(), [T0 + 4000, T0 + 5000]);
  // an earlier job moves both timers
  s.jobsChanged(new Date(T0 + 3000).toISOString());
  t.deepEqual(timers(), [T0 + 2000, T0 + 3000]);
  clock.advance(T0 + 2000);
  t.is(fake.prepares.length, 1, 'prepared once, at the lead');
  t.is(fake.fires.length, 0, 'the pass waits for its instant');
  // a job due within the lead: only the fire timer moves, nothing more to prepare
  s.jobsChanged(new Date(T0 + 2500).toISOString());
  t.deepEqual(timers(), [T0 + 2500]);
  const read = fake.called(JOBS_NEXT_DUE_ACTION);
  clock.advance(T0 + 2500);
  await read;
  t.is(fake.fires.length, 1);
  fake.nextDue.shift()!({ next_run_at: null });
  await s.pass();
  t.deepEqual(timers(), [T0 + 2500 + 60_000], 'the tick alone: not prepared');
  await s.stop();
  t.is(fake.prepares.length, 1);
});
