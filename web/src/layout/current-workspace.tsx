import { createContext, useContext, useState, type ReactNode } from 'react';

interface Current {
  workspaceId: string | undefined;
  setWorkspaceId(id: string | undefined): void;
}

const CurrentWorkspace = createContext<Current>({ workspaceId: undefined, setWorkspaceId: () => undefined });

/** The workspace chosen in the switcher; the board, task and run pages scope to it. */
export function CurrentWorkspaceProvider({ children }: { children: ReactNode }): ReactNode {
  const [workspaceId, setWorkspaceId] = useState<string | undefined>();
  return <CurrentWorkspace.Provider value={{ workspaceId, setWorkspaceId }}>{children}</CurrentWorkspace.Provider>;
}

export function useCurrentWorkspace(): Current {
  return useContext(CurrentWorkspace);
}
