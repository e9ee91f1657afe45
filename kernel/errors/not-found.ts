/** Whether a broker call failed because the record is not the caller's entity's (or does not exist). */
export function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; type?: unknown };
  return e.code === 404 || e.type === 'NOT_FOUND';
}
