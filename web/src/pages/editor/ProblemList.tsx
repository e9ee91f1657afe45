import type { ReactNode } from 'react';
import type { Step } from '../../graph/types';
import type { MappedProblems, StepProblems } from './problems';

function messagesOf(p: StepProblems): string[] {
  return [...Object.values(p.fields).flatMap((l) => l ?? []), ...p.config.map((c) => c.message)];
}

/** Why a save did not happen: the editor's own checks (save blocked) and the server's 422, each linking to its step. */
export function ProblemList({ steps, local, server, onSelect }: { steps: Step[]; local: MappedProblems; server: MappedProblems; onSelect: (id: string) => void }): ReactNode {
  const rows: { step?: string; message: string }[] = [];
  for (const m of [local, server]) {
    for (const message of m.general) rows.push({ message });
    for (const [step, p] of m.byStep) for (const message of messagesOf(p)) rows.push({ step, message });
  }
  if (!rows.length) return null;
  const known = new Set(steps.map((s) => s.id));
  return (
    <div className="problem-note editor-problems" role="alert">
      <strong>Not saved: {rows.length} problem{rows.length === 1 ? '' : 's'}.</strong>
      <ul>
        {rows.map((r, i) => (
          <li key={`${r.step ?? ''}${i}`}>
            {r.step && known.has(r.step) ? <button type="button" className="link" onClick={() => onSelect(r.step!)}>{r.step}</button> : r.step && <code>{r.step}</code>}
            {r.step ? ': ' : ''}{r.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
