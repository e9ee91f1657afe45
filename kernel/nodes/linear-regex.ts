import { setFlagsFromString } from 'node:v8';
import { NodeStepError } from './model-step.ts';

/**
 * Patterns from workflow configs are hostile input: with a backtracking engine `(a+)+$` on a
 * few dozen characters takes longer than the universe. They are compiled with V8's linear-time
 * engine (the `l` flag, enabled here once per process): matching is O(pattern x subject) for
 * every pattern it accepts, and it refuses what it cannot run in linear time (backreferences,
 * lookaround, case-insensitive matching), which fails the step with BAD_PATTERN instead. No
 * pattern can hang a worker, whatever it is; other regular expressions of the process are
 * untouched (the flag only makes `l` available). Subjects are bounded too (MAX_SUBJECT characters),
 * so one match costs at most MAX_PATTERN x MAX_SUBJECT steps.
 */
setFlagsFromString('--enable-experimental-regexp-engine');

export const MAX_PATTERN = 1000;
export const MAX_SUBJECT = 100_000;

export function linearRegex(pattern: string, field: string): RegExp {
  if (pattern.length > MAX_PATTERN) throw new NodeStepError(`${field} is longer than ${MAX_PATTERN} characters.`, 'BAD_PATTERN');
  try {
    return new RegExp(pattern, 'l');
  } catch (err) {
    throw new NodeStepError(`${field} '${pattern.slice(0, 100)}' cannot be used: ${(err as Error).message.replace(/^Invalid regular expression: /, '')} (backreferences, lookaround and case-insensitive flags are not supported).`, 'BAD_PATTERN');
  }
}

/** Whether `subject` (as text; a longer one than MAX_SUBJECT fails the step) matches. */
export function matchesLinear(re: RegExp, subject: unknown): boolean {
  const text = typeof subject === 'string' ? subject : subject === undefined || subject === null ? '' : typeof subject === 'object' ? JSON.stringify(subject) : String(subject);
  if (text.length > MAX_SUBJECT) throw new NodeStepError(`A value of ${text.length} characters is over the ${MAX_SUBJECT} a pattern is matched against.`, 'BAD_INPUT');
  return re.test(text);
}
