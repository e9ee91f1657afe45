import { SANDBOX_ERR } from './errors.ts';
import type { DriverOutcome, DriverRun, StopReason } from './driver.ts';
import type { Envelope } from './isolate/wrapper.ts';
import { MAX_LOG_LINE_CHARS, MAX_LOG_LINES } from './limits.ts';

/** A run stopped from outside: its time limit passed, or it was cancelled. */
export function stopError(reason: StopReason, run: { timeoutMs: number }): unknown {
  if (reason === 'cancelled') return SANDBOX_ERR.CANCELLED('The run was cancelled before it finished.');
  return SANDBOX_ERR.TIME_LIMIT(`The code ran past its time limit of ${run.timeoutMs} ms.`, { limit_ms: run.timeoutMs });
}

/** Console lines as a driver got them, capped again (the code may have forged them). */
export function checkedLogs(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_LOG_LINES).map((line) => String(line).slice(0, MAX_LOG_LINE_CHARS));
}

/**
 * A driver's answer from inside the sandbox (ok with `result`, or the kind of failure), trusted
 * for nothing: the snippet could have forged it, so every field is checked.
 */
export function readEnvelope(answer: unknown, run: Pick<DriverRun, 'maxOutputBytes' | 'memoryMb'>): DriverOutcome {
  if (typeof answer !== 'string') throw SANDBOX_ERR.OUTPUT_NOT_JSON('The code replaced what the sandbox answers; its result could not be read.');
  let envelope: Envelope;
  try {
    envelope = JSON.parse(answer) as Envelope;
  } catch {
    throw SANDBOX_ERR.OUTPUT_NOT_JSON('The code replaced what the sandbox answers; its result could not be read.');
  }
  const logs = checkedLogs(envelope?.logs);
  if (envelope?.ok === true) return { result: envelope.result ?? null, logs };
  if (envelope?.ok === false && envelope.kind === 'too_large') {
    throw SANDBOX_ERR.OUTPUT_TOO_LARGE(`The result is larger than the ${run.maxOutputBytes} bytes a run may answer.`, { limit_bytes: run.maxOutputBytes, logs });
  }
  if (envelope?.ok === false && envelope.kind === 'memory') {
    throw SANDBOX_ERR.MEMORY_LIMIT(`The code used more than its ${run.memoryMb} MB of memory.`, { limit_mb: run.memoryMb, logs });
  }
  if (envelope?.ok === false && envelope.kind === 'syntax') {
    const at = position(envelope);
    throw SANDBOX_ERR.SYNTAX(`The code does not parse: ${String(envelope.message ?? '').slice(0, 500)}${at.text}.`, { field: 'code', ...at.fields });
  }
  if (envelope?.ok === false && envelope.kind === 'not_json') {
    throw SANDBOX_ERR.OUTPUT_NOT_JSON(`The result is not a JSON value: ${String(envelope.message ?? '').slice(0, 500)}`, { logs });
  }
  if (envelope?.ok === false && envelope.kind === 'runtime') {
    const at = position(envelope);
    throw SANDBOX_ERR.RUNTIME(`${String(envelope.message ?? 'The code threw').slice(0, 2000)}${at.text}`, { ...at.fields, logs });
  }
  throw SANDBOX_ERR.OUTPUT_NOT_JSON('The code replaced what the sandbox answers; its result could not be read.');
}

/** Where in the user's code, when the envelope says so: ` (line 3, column 7)` and its fields. */
function position(envelope: { line?: unknown; column?: unknown }): { text: string; fields: { line?: number; column?: number } } {
  const line = Number.isInteger(envelope.line) && (envelope.line as number) > 0 ? (envelope.line as number) : undefined;
  const column = Number.isInteger(envelope.column) && (envelope.column as number) > 0 ? (envelope.column as number) : undefined;
  if (!line) return { text: '', fields: {} };
  return { text: ` (line ${line}${column ? `, column ${column}` : ''})`, fields: { line, ...(column ? { column } : {}) } };
}
