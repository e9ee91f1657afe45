import { memo, type ReactNode } from 'react';
import type { Step } from '../../graph/types';

interface Props {
  steps: Step[];
  selected?: string;
  problemsOf: (id: string) => number;
  onSelect: (id: string) => void;
}

/** The steps as a list under the canvas: the keyboard's and screen reader's way to find and select one. */
export const StepOutline = memo(StepOutlineImpl, sameOutline);

/** what the list shows did not change (a drag moves a step: its position is not shown here) */
function sameOutline(a: Props, b: Props): boolean {
  if (a.selected !== b.selected || a.onSelect !== b.onSelect || a.steps.length !== b.steps.length) return false;
  return a.steps.every((s, i) => {
    const t = b.steps[i]!;
    return s === t || (s.id === t.id && s.name === t.name && s.type === t.type && s.next === t.next && a.problemsOf(s.id) === b.problemsOf(t.id));
  });
}

function StepOutlineImpl({ steps, selected, problemsOf, onSelect }: Props): ReactNode {
  return (
    <nav className="step-outline" aria-label="Steps">
      <ul>
        {steps.map((s) => {
          const problems = problemsOf(s.id);
          return (
            <li key={s.id}>
              <button type="button" aria-pressed={s.id === selected} data-step-id={s.id} onClick={() => onSelect(s.id)}>
                {s.name || s.id} <span className="muted">({s.id} · {s.type})</span>
                {s.next.length > 0 && <span className="muted"> → {s.next.join(', ')}</span>}
                {problems > 0 && <span className="badge badge-danger"> ⚠ {problems}</span>}
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
