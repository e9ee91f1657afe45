/** ISO 8601 dates and date-times (no I/O). */

/** A date (2030-01-31) or date-time (2030-01-31T17:00:00Z, offsets allowed). */
export const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/** The text is ISO-shaped and names a real calendar day (2024-02-30 is not one). */
export function isDateText(text: string): boolean {
  if (!DATE_TIME_PATTERN.test(text) || Number.isNaN(new Date(text).getTime())) return false;
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const probe = new Date(Date.UTC(y, m - 1, d));
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}
