import { useState, type FormEvent, type ReactNode } from 'react';
import { ProblemNote } from '../../ui/states';

export interface WorkspaceFields {
  name: string;
  description: string;
  category: string;
}

/** Create and edit share one form; the server's 422 is shown under it, field by field. */
export function WorkspaceForm(props: { initial?: WorkspaceFields; submitLabel: string; busy: boolean; error: unknown; onSubmit(fields: WorkspaceFields): void; onCancel?(): void }): ReactNode {
  const [fields, setFields] = useState<WorkspaceFields>(props.initial ?? { name: '', description: '', category: '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onSubmit(fields);
  };
  return (
    <form className="form" onSubmit={submit}>
      <label>
        Name
        <input value={fields.name} onChange={(e) => setFields({ ...fields, name: e.target.value })} />
      </label>
      <label>
        Category
        <input value={fields.category} onChange={(e) => setFields({ ...fields, category: e.target.value })} />
      </label>
      <label>
        Description
        <textarea value={fields.description} onChange={(e) => setFields({ ...fields, description: e.target.value })} />
      </label>
      <ProblemNote error={props.error} />
      <div className="actions">
        <button type="submit" disabled={props.busy}>{props.submitLabel}</button>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  );
}
