let lastMs = -1;
let lastIso = '';

/**
 * The current time as an ISO string, formatted once per millisecond: a step's receipt takes
 * two timestamps and a busy engine asks many times within the same millisecond.
 */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
