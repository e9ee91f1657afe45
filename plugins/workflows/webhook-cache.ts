import { hashToken, type BindingStore, type BindingWithDefinition } from './store/bindings.ts';

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/**
 * Webhook bindings by token, kept a few seconds so a busy webhook does not look its
 * binding up on every request. Any binding change anywhere in the cluster clears it
 * (`workflows.bindings.changed`), so a rotated or deleted token stops working at once.
 */
export class WebhookCache {
  private readonly entries = new Map<string, { binding: BindingWithDefinition | null; expires: number }>();

  constructor(private readonly store: BindingStore) {}

  clear(): void {
    this.entries.clear();
  }

  /** Keyed by the token itself (this process's memory only), so a hit costs no hashing. */
  async lookup(token: string): Promise<BindingWithDefinition | null> {
    const hit = this.entries.get(token);
    if (hit && hit.expires > Date.now()) return hit.binding;
    const binding = (await this.store.byTokenHash(hashToken(token))) ?? null;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(token, { binding, expires: Date.now() + TTL_MS });
    return binding;
  }
}
