import type { ReactNode } from 'react';

const ICON: Record<string, string> = { pending: '◌', running: '▶', paused: '⏸', waiting: '⏸', completed: '✔', failed: '✖', cancelled: '⊘', skipped: '↷', needs_reconciliation: '?', reconciled: '✔' };

/** A status as a word and a symbol, never by colour alone. */
export function RunStatus({ status }: { status: string }): ReactNode {
  return (
    <span className={`status status-${status}`}>
      <span aria-hidden="true">{ICON[status] ?? '•'}</span> {status}
    </span>
  );
}
