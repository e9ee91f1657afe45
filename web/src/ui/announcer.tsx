import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

const AnnounceContext = createContext<(message: string) => void>(() => undefined);

/** One polite live region for the whole app: moves, run status and saves are read out by screen readers. */
export function AnnouncerProvider({ children }: { children: ReactNode }): ReactNode {
  const [message, setMessage] = useState('');
  const announce = useCallback((m: string) => setMessage((prev) => (prev === m ? `${m}\u00a0` : m)), []);
  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div className="sr-only" role="status" aria-live="polite" data-testid="announcer">{message}</div>
    </AnnounceContext.Provider>
  );
}

export function useAnnounce(): (message: string) => void {
  return useContext(AnnounceContext);
}
