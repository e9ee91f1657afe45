import type { ResponseOf } from '../../api/client';

export type Constants = ResponseOf<'/api/v1/tasks/constants', 'get'>;
export type Status = Constants['statuses'][number];
export interface Column {
  key: string;
  title: string;
  statuses: Status[];
}

/** Where a task in `from` may go, as the server's state machine says (allowed_targets, else the transitions). */
export function allowedTargets(constants: Constants, from: Status): Status[] {
  const listed = constants.allowed_targets?.[from];
  if (listed) return listed;
  return constants.transitions.filter((t) => t.from === from).map((t) => t.to);
}

/** For a drag from `from`: each column's legal statuses (empty = an illegal drop there). */
export function legalByColumn(constants: Constants, columns: Column[], from: Status): Map<string, Status[]> {
  const targets = new Set(allowedTargets(constants, from));
  return new Map(columns.map((c) => [c.key, c.statuses.filter((s) => targets.has(s))]));
}

export type DropDecision =
  | { kind: 'same' }
  | { kind: 'illegal'; message: string; allowed: Status[] }
  | { kind: 'move'; status: Status }
  | { kind: 'choose'; statuses: Status[] };

/** What a drop of a `from` task onto `column` means: nothing, refused (with the allowed targets), a move, or a choice. */
export function decideDrop(constants: Constants, column: Column, from: Status): DropDecision {
  if (column.statuses.includes(from)) return { kind: 'same' };
  const allowed = allowedTargets(constants, from);
  const legal = column.statuses.filter((s) => allowed.includes(s));
  if (legal.length === 0) {
    return { kind: 'illegal', allowed, message: `A ${label(from)} task cannot move to ${column.title}. It may move to: ${allowed.map(label).join(', ') || 'nowhere'}.` };
  }
  if (legal.length === 1) return { kind: 'move', status: legal[0]! };
  return { kind: 'choose', statuses: legal };
}

/** Columns in the user's order, only the visible ones (unknown keys ignored, unlisted columns last). */
export function arrangeColumns<C extends { key: string }>(columns: C[], prefs: { visible_columns: string[]; column_order: string[] } | undefined): C[] {
  if (!prefs) return columns;
  const rank = (k: string) => {
    const i = prefs.column_order.indexOf(k);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const visible = new Set(prefs.visible_columns);
  return columns.filter((c) => visible.has(c.key)).sort((a, b) => rank(a.key) - rank(b.key));
}

/** The column a status belongs to. */
export function columnOf<C extends Column>(columns: C[], status: Status): C | undefined {
  return columns.find((c) => c.statuses.includes(status));
}

export function label(status: string): string {
  return status.replaceAll('_', ' ');
}
