import { BOARD_COLUMN_KEYS } from './board-columns.ts';

/** Per-user board preferences: what they may hold, and the defaults (no I/O). */

export const VIEW_MODES = ['board', 'list'] as const;
export type ViewMode = (typeof VIEW_MODES)[number];

export interface BoardPreferences {
  mode: ViewMode;
  visible_columns: string[];
  column_order: string[];
}

export function defaultBoardPreferences(): BoardPreferences {
  return { mode: 'board', visible_columns: [...BOARD_COLUMN_KEYS], column_order: [...BOARD_COLUMN_KEYS] };
}

export interface PreferenceProblem {
  field: string;
  message: string;
  type: string;
}

/** Visible columns: known, each once. Column order: every column exactly once. */
export function preferenceProblems(prefs: BoardPreferences): PreferenceProblem[] {
  const problems: PreferenceProblem[] = [];
  const known = new Set<string>(BOARD_COLUMN_KEYS);
  const unknownIn = (list: string[]) => list.filter((k) => !known.has(k));
  const repeatedIn = (list: string[]) => list.filter((k, i) => list.indexOf(k) !== i);
  for (const field of ['visible_columns', 'column_order'] as const) {
    const unknown = unknownIn(prefs[field]);
    if (unknown.length) problems.push({ field, message: `Unknown column(s) ${unknown.join(', ')}; the columns are ${BOARD_COLUMN_KEYS.join(', ')}.`, type: 'column' });
    const repeated = repeatedIn(prefs[field]);
    if (repeated.length) problems.push({ field, message: `Column(s) ${[...new Set(repeated)].join(', ')} appear more than once.`, type: 'unique' });
  }
  const missing = BOARD_COLUMN_KEYS.filter((k) => !prefs.column_order.includes(k));
  if (missing.length) problems.push({ field: 'column_order', message: `The order must list every column; missing: ${missing.join(', ')}.`, type: 'permutation' });
  return problems;
}
