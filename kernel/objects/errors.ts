/**
 * A one-line description of any thrown value. Network failures from Node often
 * carry an empty message (an AggregateError per address tried), so the code
 * and the inner errors are spelled out.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const parts: string[] = [];
  if (err.name && err.name !== 'Error') parts.push(err.name);
  if (typeof code === 'string' && code !== err.name) parts.push(code);
  let text = parts.join(' ');
  if (err.message) text = text ? `${text}: ${err.message}` : err.message;
  if (err instanceof AggregateError && err.errors.length > 0) {
    text += ` (${err.errors.map(describeError).join('; ')})`;
  }
  return text || 'unknown error';
}
