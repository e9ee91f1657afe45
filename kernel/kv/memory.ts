import { normaliseTtlMs } from './ttl.ts';
import type { KeyValueSetOptions, KeyValueStore } from './types.ts';

interface Entry {
  value: string;
  /** Epoch ms, or null for no expiry. */
  expiresAt: number | null;
}

export interface MemoryKeyValueStoreOptions {
  /** How often expired keys are swept out (default 60 000 ms); reads also drop them. */
  sweepIntervalMs?: number;
}

const INTEGER = /^-?\d+$/;

/** KeyValueStore in a Map, for the embedded single-process setup. */
export class MemoryKeyValueStore implements KeyValueStore {
  readonly driver = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly sweepTimer: NodeJS.Timeout;
  private closed = false;

  constructor(opts: MemoryKeyValueStoreOptions = {}) {
    this.sweepTimer = setInterval(() => this.sweep(), opts.sweepIntervalMs ?? 60_000);
    this.sweepTimer.unref();
  }

  /** Entries held, including expired ones not yet swept (for diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, opts: KeyValueSetOptions = {}): Promise<void> {
    const ttlMs = normaliseTtlMs(opts.ttlMs);
    this.assertOpen();
    this.entries.set(key, { value, expiresAt: ttlMs === undefined ? null : Date.now() + ttlMs });
  }

  async del(key: string): Promise<void> {
    this.assertOpen();
    this.entries.delete(key);
  }

  async incr(key: string, opts: KeyValueSetOptions = {}): Promise<number> {
    const ttlMs = normaliseTtlMs(opts.ttlMs);
    const entry = this.live(key);
    if (!entry) {
      this.entries.set(key, { value: '1', expiresAt: ttlMs === undefined ? null : Date.now() + ttlMs });
      return 1;
    }
    const current = Number(entry.value);
    if (!INTEGER.test(entry.value) || !Number.isSafeInteger(current + 1)) {
      throw new Error(`Cannot increment key '${key}': value is not an integer or out of range`);
    }
    entry.value = String(current + 1);
    return current + 1;
  }

  async ttlMs(key: string): Promise<number | null> {
    const entry = this.live(key);
    if (!entry || entry.expiresAt === null) return null;
    return Math.max(0, entry.expiresAt - Date.now());
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.entries.clear();
  }

  /** Drops every expired entry. Runs periodically; public so callers can force it. */
  sweep(now: number = Date.now()): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.entries.delete(key);
    }
  }

  private live(key: string): Entry | undefined {
    this.assertOpen();
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('Key-value store (memory) is closed');
  }
}
