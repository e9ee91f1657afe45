import { latestFire, nextFire, type Schedule } from './schedule.ts';

/**
 * What a due job does at `now`, given the slot it was due at (`due`, its stored next fire):
 *
 * - one slot, on time (no later than `graceMs` after it): it fires for that slot;
 * - later than that, or several slots passed (the scheduler was down): it fires ONCE, for the
 *   latest slot, marked `caught_up`, if that slot is within the look-back (24 h); the slots in
 *   between are folded into it;
 * - slots older than the look-back are logged once as `missed` (first and last slot); when no
 *   slot is within the look-back there is nothing to catch up, only the miss.
 *
 * `next` is the first slot after `now` (null: the schedule has ended, e.g. a one-shot `at`).
 */
export interface FirePlan {
  fire: { scheduled_for: Date; caught_up: boolean } | null;
  missed: { first: Date; last: Date } | null;
  next: Date | null;
}

export function planFire(schedule: Schedule, due: Date, now: Date, opts: { graceMs: number; lookbackMs: number }): FirePlan {
  const next = nextFire(schedule, now);
  if (due.getTime() > now.getTime()) return { fire: null, missed: null, next: due };
  const latest = latestFire(schedule, now) ?? due;
  const onTime = latest.getTime() === due.getTime() && now.getTime() - due.getTime() <= opts.graceMs;
  if (onTime) return { fire: { scheduled_for: due, caught_up: false }, missed: null, next };
  const windowStart = now.getTime() - opts.lookbackMs;
  let missed: FirePlan['missed'] = null;
  if (due.getTime() < windowStart) {
    const lastOld = latestFire(schedule, new Date(windowStart - 1)) ?? due;
    missed = { first: due, last: lastOld.getTime() < due.getTime() ? due : lastOld };
  }
  const fire = latest.getTime() >= windowStart ? { scheduled_for: latest, caught_up: true } : null;
  return { fire, missed, next };
}
