import { Cron } from 'croner';

/**
 * Cron expressions as the contract states them: exactly 5 fields (minute, hour, day-of-month,
 * month, day-of-week), each `*`, a number, a range `a-b`, a step `*\/N` or `a-b/N`, or a
 * comma list of those; day-of-week 0 is Sunday. Checked here field by field (so a 422 can
 * name the field), evaluated by croner in the wall-clock time of an IANA zone.
 *
 * Daylight saving, as a person expects (croner's Vixie-cron rule with `fixedTimeRule:
 * 'no-wildcard'`): a job at a fixed time that falls in a skipped hour fires once, at the first
 * valid instant after the gap; in a repeated hour it fires once, at the first occurrence. A job
 * with a wildcard or step in minute or hour keeps its rhythm (skipped times are skipped,
 * repeated ones run twice, since they are different instants).
 */

export interface CronField {
  name: 'minute' | 'hour' | 'day_of_month' | 'month' | 'day_of_week';
  min: number;
  max: number;
}

export const CRON_FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day_of_month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day_of_week', min: 0, max: 6 },
];

const PART = /^(\*|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,3}))?$/;

/** What is wrong with one field's text, or null. */
function fieldProblem(field: CronField, text: string): string | null {
  for (const part of text.split(',')) {
    const m = PART.exec(part);
    if (!m) return `${field.name} '${text}': '${part}' is not *, a number, a range a-b or a step */N (names and L, W, #, ? are not accepted)`;
    const [, , from, to, step] = m;
    if (step !== undefined && Number(step) === 0) return `${field.name} '${text}': a step of 0 never advances`;
    if (step !== undefined && from !== undefined && to === undefined) return `${field.name} '${text}': a step needs * or a range before it (e.g. */${step} or ${from}-${field.max}/${step})`;
    for (const n of [from, to]) {
      if (n !== undefined && (Number(n) < field.min || Number(n) > field.max)) return `${field.name} '${text}': ${n} is out of range ${field.min}-${field.max}`;
    }
    if (from !== undefined && to !== undefined && Number(from) > Number(to)) return `${field.name} '${text}': the range ${from}-${to} runs backwards`;
  }
  return null;
}

/** Problems of an expression (empty when it is valid): one message per wrong field. */
export function cronProblems(expression: string): string[] {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 || expression.trim() === '') {
    return [`a cron expression has exactly 5 fields (minute hour day-of-month month day-of-week); '${expression}' has ${expression.trim() === '' ? 0 : fields.length}`];
  }
  return CRON_FIELDS.map((f, i) => fieldProblem(f, fields[i])).filter((p): p is string => p !== null);
}

const CACHE_MAX = 2000;
const cache = new Map<string, Cron>();

/** A croner evaluator (no timer) for a valid expression in a zone; cached, since building one costs more than asking it. */
export function cronIn(expression: string, timezone: string): Cron {
  const key = `${timezone} ${expression}`;
  let cron = cache.get(key);
  if (!cron) {
    cron = new Cron(expression.trim(), { mode: '5-part', timezone, fixedTimeRule: 'no-wildcard', paused: true });
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(key, cron);
  }
  return cron;
}

/** The first fire strictly after `after`, or null when there is none. */
export function nextCronFire(expression: string, timezone: string, after: Date): Date | null {
  return cronIn(expression, timezone).nextRun(after);
}

/** The latest fire at or before `atOrBefore`, or null. */
export function previousCronFire(expression: string, timezone: string, atOrBefore: Date): Date | null {
  return cronIn(expression, timezone).previousRuns(1, new Date(atOrBefore.getTime() + 1))[0] ?? null;
}
