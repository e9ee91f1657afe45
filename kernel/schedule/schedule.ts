import { IANAZone } from 'luxon';
import { cronProblems, nextCronFire, previousCronFire } from './cron.ts';

/**
 * When a scheduled job (or a workflow binding with trigger `schedule`) fires: one declaration
 * shared by the jobs package, the scheduler and the workflows package.
 *
 * - `cron`: a 5-field expression evaluated in the wall-clock time of `timezone` (cron.ts);
 * - `every`: a fixed interval of `every_seconds`, counted from `anchor` (the job's creation,
 *   or its last schedule change), so fires sit on anchor + k * interval;
 * - `at`: one instant.
 */
export type Schedule =
  | { kind: 'cron'; cron: string; timezone: string }
  | { kind: 'every'; every_seconds: number; anchor: Date }
  | { kind: 'at'; at: Date };

export const SCHEDULE_KINDS = ['cron', 'every', 'at'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** Shortest `every` interval: the scheduler's precision is a second, but a job per second is a load test, not an automation. */
export const MIN_EVERY_SECONDS = 60;
export const MAX_EVERY_SECONDS = 366 * 24 * 3600;

export interface ScheduleProblem {
  field: string;
  message: string;
  type: string;
}

export function isKnownZone(zone: string): boolean {
  return typeof zone === 'string' && zone.length > 0 && IANAZone.isValidZone(zone);
}

/** What is wrong with a cron expression and zone, as fields of a 422 (prefix: `schedule.` for jobs, `trigger.` for bindings). */
export function cronScheduleProblems(cron: string, timezone: string, prefix: string): ScheduleProblem[] {
  const problems: ScheduleProblem[] = cronProblems(cron).map((message) => ({ field: `${prefix}cron`, message: `The '${prefix}cron' field is not a valid cron expression: ${message}.`, type: 'cron' }));
  if (!isKnownZone(timezone)) problems.push({ field: `${prefix}timezone`, message: `The '${prefix}timezone' field must be an IANA time zone such as Europe/Berlin; '${timezone}' is not one.`, type: 'timezone' });
  return problems;
}

/** The first fire strictly after `after` (null: none left, e.g. an `at` that has passed). */
export function nextFire(schedule: Schedule, after: Date): Date | null {
  if (schedule.kind === 'cron') return nextCronFire(schedule.cron, schedule.timezone, after);
  if (schedule.kind === 'at') return schedule.at.getTime() > after.getTime() ? schedule.at : null;
  const step = schedule.every_seconds * 1000;
  const anchor = schedule.anchor.getTime();
  if (after.getTime() < anchor) return new Date(anchor);
  return new Date(anchor + (Math.floor((after.getTime() - anchor) / step) + 1) * step);
}

/** The latest fire at or before `atOrBefore` (null: none). */
export function latestFire(schedule: Schedule, atOrBefore: Date): Date | null {
  if (schedule.kind === 'cron') return previousCronFire(schedule.cron, schedule.timezone, atOrBefore);
  if (schedule.kind === 'at') return schedule.at.getTime() <= atOrBefore.getTime() ? schedule.at : null;
  const step = schedule.every_seconds * 1000;
  const anchor = schedule.anchor.getTime();
  if (atOrBefore.getTime() < anchor) return null;
  return new Date(anchor + Math.floor((atOrBefore.getTime() - anchor) / step) * step);
}

/** The next `count` fires strictly after `after` (fewer when the schedule ends). */
export function nextFires(schedule: Schedule, after: Date, count: number): Date[] {
  const out: Date[] = [];
  let cursor = after;
  while (out.length < count) {
    const next = nextFire(schedule, cursor);
    if (!next) break;
    out.push(next);
    cursor = next;
  }
  return out;
}
