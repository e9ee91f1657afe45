/** Runs async sections one at a time per key; different keys run concurrently. */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, section: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    this.#tails.set(key, tail);
    try {
      if (previous) await previous;
      return await section();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
