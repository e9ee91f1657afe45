/**
 * Whether the app must ask the person to sign in. A request answered 401 waits here until
 * they have signed in again (the login form opens over the current page), then repeats, so
 * nothing on the page is lost.
 */
type Listener = () => void;

let required = false;
let waiters: Array<() => void> = [];
const listeners = new Set<Listener>();

function notify(): void {
  for (const l of listeners) l();
}

export const sessionState = {
  isRequired: (): boolean => required,
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** opens the login form; resolves once a sign-in succeeded */
  require(): Promise<void> {
    return new Promise((resolve) => {
      waiters.push(resolve);
      if (!required) {
        required = true;
        notify();
      }
    });
  },
  /** a sign-in succeeded: close the form and release every waiting request */
  satisfied(): void {
    required = false;
    const released = waiters;
    waiters = [];
    for (const w of released) w();
    notify();
  },
};
