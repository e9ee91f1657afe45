/** A datetime-local input's value as the API's ISO timestamp (UTC); empty is no deadline. An unparsable value is sent as typed, for the server to name. */
export function deadlineToApi(local: string): string | null {
  if (!local) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

/** An ISO timestamp as a datetime-local input's value, in local time. */
export function deadlineToInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
