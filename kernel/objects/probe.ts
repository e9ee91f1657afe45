import { randomUUID } from 'node:crypto';
import { describeError } from './errors.ts';
import type { ObjectStore } from './types.ts';

/**
 * The body of every driver's `check()`: write, read back, delete and confirm
 * the deletion of a small probe object. `where` names the store in the error.
 */
export async function runProbeRoundTrip(store: ObjectStore, where: string): Promise<void> {
  const key = `_probe/check-${randomUUID()}`;
  const payload = Buffer.from(`object store probe ${key}`);
  try {
    await store.put(key, payload, { contentType: 'text/plain', metadata: { probe: 'check' } });
    const readBack = await store.getBuffer(key);
    if (readBack === null) throw new Error('the probe object was written but reading it back found nothing');
    if (!readBack.equals(payload)) throw new Error('the probe object read back differs from what was written');
    await store.delete(key);
    if ((await store.head(key)) !== null) throw new Error('the probe object is still there after delete');
  } catch (err) {
    await store.delete(key).catch(() => undefined); // best effort; the original failure is what matters
    throw new Error(`Object store check failed for ${where}: ${describeError(err)}`, { cause: err });
  }
}
