import { infiniteQueryOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { constantsQuery, keys } from '../../hooks/queries';
import { arrangeColumns, type Column } from './moves';

/**
 * The board's reads, as query options shared by the page and by `prefetchBoard`: the app starts
 * them at load (src/preload.ts) while the board's chunk downloads, so the page finds them cached
 * or in flight under the same keys instead of asking only once it has rendered. Kept small: this
 * module is in the initial download.
 */
const PAGE = 100;

export function columnKey(workspaceId: string | undefined, column: string): readonly unknown[] {
  return ['tasks', 'column', workspaceId ?? 'all', column];
}

export const boardPrefsQuery = queryOptions({ queryKey: keys.boardPrefs, queryFn: () => unwrap(api.GET('/api/v1/tasks/board-preferences')) });

export function boardQuery(workspaceId: string | undefined) {
  return queryOptions({
    queryKey: keys.board(workspaceId),
    queryFn: () => unwrap(api.GET('/api/v1/tasks/board', { params: { query: { per_column: 0, ...(workspaceId ? { workspace: workspaceId } : {}) } } })),
  });
}

/** One column's tasks, paged by offset (this list asks for no cursor, so pages always carry their offset). */
export function columnQuery(workspaceId: string | undefined, column: Column) {
  return infiniteQueryOptions({
    queryKey: columnKey(workspaceId, column.key),
    initialPageParam: 0,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/api/v1/tasks', { params: { query: { status: column.statuses, limit: PAGE, offset: pageParam, sort: '-priority,created_at', ...(workspaceId ? { workspace: workspaceId } : {}) } } })),
    getNextPageParam: (last) => {
      const seen = (last.offset ?? 0) + last.items.length;
      return seen < last.total ? seen : undefined;
    },
  });
}

/** Starts the board's first reads: constants, preferences and counts at once, each column's first page once the columns are known. */
export async function prefetchBoard(queryClient: QueryClient, workspaceId: string | undefined): Promise<void> {
  void queryClient.prefetchQuery(boardQuery(workspaceId));
  const [constants, prefs] = await Promise.all([queryClient.fetchQuery(constantsQuery), queryClient.fetchQuery(boardPrefsQuery)]);
  const columns = arrangeColumns(constants.board_columns as Column[], prefs);
  await Promise.all(columns.map((c) => queryClient.prefetchInfiniteQuery(columnQuery(workspaceId, c))));
}
