import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** Query keys and the shared reads several pages use; one place so invalidation matches. */
export const keys = {
  me: ['me'] as const,
  workspaces: ['workspaces'] as const,
  workspace: (id: string) => ['workspaces', id] as const,
  constants: ['tasks', 'constants'] as const,
  tasks: ['tasks'] as const,
  task: (id: string) => ['tasks', 'one', id] as const,
  board: (workspace: string | undefined) => ['tasks', 'board', workspace ?? 'all'] as const,
  boardPrefs: ['tasks', 'board-preferences'] as const,
  nodeTypes: ['workflows', 'node-types'] as const,
  workflows: ['workflows'] as const,
  workflow: (id: string) => ['workflows', 'one', id] as const,
  runs: ['runs'] as const,
  run: (id: string) => ['runs', 'one', id] as const,
  bindings: ['bindings'] as const,
};

// the options of the reads the app starts before its first render (src/preload.ts) and the hooks
// below share: the same key and function, so a page finds the answer cached or in flight
export const meQuery = queryOptions({ queryKey: keys.me, queryFn: () => unwrap(api.GET('/api/v1/auth/me')), staleTime: 60_000 });

export function workspacesQuery(includeArchived = false) {
  return queryOptions({
    queryKey: [...keys.workspaces, { includeArchived }],
    queryFn: () => unwrap(api.GET('/api/v1/workspaces', { params: { query: { limit: 200, include_archived: includeArchived } } })),
  });
}

export const constantsQuery = queryOptions({ queryKey: keys.constants, queryFn: () => unwrap(api.GET('/api/v1/tasks/constants')), staleTime: Infinity });

export function useMe() {
  return useQuery(meQuery);
}

export function useWorkspaces(includeArchived = false) {
  return useQuery(workspacesQuery(includeArchived));
}

/** The task state machine, columns and priorities: never hard-coded in the app. */
export function useTaskConstants() {
  return useQuery(constantsQuery);
}

export function useNodeTypes() {
  return useQuery({ queryKey: keys.nodeTypes, queryFn: () => unwrap(api.GET('/api/v1/workflows/node-types')), staleTime: 30_000 });
}
