/** Polls until the check passes (returns truthy) or the bound runs out; returns the last value. */
export async function eventually<T>(check: () => Promise<T>, opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let last: T;
  do {
    last = await check();
    if (last) return last;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  } while (Date.now() < deadline);
  return last;
}
