import { nextFire, nextFires } from '../../kernel/schedule/schedule.ts';
import { scheduleOf, type JobValues } from './store/types.ts';

/** The first fire after `now` of an enabled job (null: paused, or a one-shot already past). */
export function firstFire(values: JobValues, now: Date): Date | null {
  return values.enabled ? nextFire(scheduleOf(values), now) : null;
}

export function previewFires(values: JobValues, now: Date, count: number): Date[] {
  return nextFires(scheduleOf(values), now, count);
}
