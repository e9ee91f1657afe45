/**
 * Holds new calls to services whose package is being swapped (reloaded), so that a request
 * arriving mid-swap waits for the new version instead of failing. Calls already running in
 * the old version finish first: moleculer's context tracking makes `destroyService` wait.
 */
export class SwapGate {
  private readonly held = new Map<string, Promise<void>>();

  get active(): boolean {
    return this.held.size > 0;
  }

  /** Holds the named services until the returned release function is called. */
  hold(serviceNames: Iterable<string>): () => void {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const names = [...serviceNames];
    for (const name of names) this.held.set(name, done);
    return () => {
      for (const name of names) if (this.held.get(name) === done) this.held.delete(name);
      release();
    };
  }

  /** A promise settled when every swap in progress has ended, or undefined when none is. */
  idle(): Promise<void> | undefined {
    return this.held.size ? Promise.all(new Set(this.held.values())).then(() => undefined) : undefined;
  }

  /** Resolves at once unless the service is held; then when its swap ends. */
  wait(serviceName: string): Promise<void> | undefined {
    return this.held.get(serviceName);
  }
}
