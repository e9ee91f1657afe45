import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Modal } from './Modal';
import { ProblemNote } from './states';

export interface ConfirmDialogProps {
  title: string;
  /** what confirming does, read out with the title */
  children: ReactNode;
  /** the confirm button's label, e.g. "Delete this workspace" */
  confirmLabel: string;
  /** when set, confirming needs this text typed exactly (a name, as GitHub asks for a repository's) */
  typeToConfirm?: string;
  busy?: boolean;
  /** the failed attempt's error, shown in the dialog */
  error?: unknown;
  onConfirm(): void;
  onCancel(): void;
}

/** A destructive action asked about in a modal: Cancel (or Escape) does nothing; confirm may need the name typed. */
export function ConfirmDialog({ title, children, confirmLabel, typeToConfirm, busy = false, error, onConfirm, onCancel }: ConfirmDialogProps): ReactNode {
  const [typed, setTyped] = useState('');
  const descriptionId = useId();
  const ready = typeToConfirm === undefined || typed === typeToConfirm;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (ready && !busy) onConfirm();
  };
  return (
    <Modal title={title} onClose={onCancel} describedBy={descriptionId}>
      <form className="form" onSubmit={submit}>
        <div id={descriptionId}>{children}</div>
        {typeToConfirm !== undefined && (
          <label>
            <span>Type <strong>{typeToConfirm}</strong> to confirm</span>
            <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} data-autofocus />
          </label>
        )}
        <ProblemNote error={error} />
        <div className="actions">
          <button type="submit" className="danger" disabled={!ready || busy}>{busy ? 'Working…' : confirmLabel}</button>
          <button type="button" onClick={onCancel} data-autofocus={typeToConfirm === undefined ? true : undefined}>Cancel</button>
        </div>
      </form>
    </Modal>
  );
}
