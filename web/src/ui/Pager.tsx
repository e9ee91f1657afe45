import type { ReactNode } from 'react';

interface PagerProps {
  /** offset of the page shown */
  offset: number;
  pageSize: number;
  /** items on the page shown */
  shown: number;
  /** all matching items, when the list counts them (else a short page is the last) */
  total?: number | null;
  /** goes to the page at this offset */
  onOffset(offset: number): void;
  label?: string;
  /** newest first lists say Newer / Older */
  words?: [previous: string, next: string];
}

/** Offset paging under a list: previous, where we are, next. */
export function Pager({ offset, pageSize, shown, total, onOffset, label = 'Pages', words = ['Previous', 'Next'] }: PagerProps): ReactNode {
  const counted = typeof total === 'number';
  const last = counted ? offset + shown >= total : shown < pageSize;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>{words[0]}</button>
      <span>{offset + 1}–{offset + shown}{counted ? ` of ${total}` : ''}</span>
      <button type="button" disabled={last} onClick={() => onOffset(offset + pageSize)}>{words[1]}</button>
    </nav>
  );
}
