import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ProblemNote } from '../../ui/states';
import { useJobActions } from './job-actions';
import type { Job } from './job-form';

/** Pause/enable, run now, edit and delete (confirmed) of a job; a binding's job is changed through its binding. */
export function JobActions({ job, onDeleted, showEdit = true }: { job: Pick<Job, 'id' | 'name' | 'enabled' | 'source' | 'binding_id'>; onDeleted?(): void; showEdit?: boolean }): ReactNode {
  const { toggle, runNow, remove, error } = useJobActions(job, { onDeleted });
  const [confirming, setConfirming] = useState(false);
  const managed = job.source === 'binding' && !!job.binding_id;
  return (
    <div className="job-actions">
      <div className="actions">
        {managed ? (
          <span className="muted">Fires a workflow binding: <Link to="/bindings">change it there</Link></span>
        ) : (
          <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate(!job.enabled)} aria-label={`${job.enabled ? 'Pause' : 'Enable'} ${job.name}`}>
            {job.enabled ? 'Pause' : 'Enable'}
          </button>
        )}
        <button type="button" disabled={runNow.isPending} onClick={() => runNow.mutate()} aria-label={`Run now: ${job.name}`}>Run now</button>
        {!managed && showEdit && <Link to={`/jobs/${job.id}/edit`} aria-label={`Edit ${job.name}`}>Edit</Link>}
        {!managed && !confirming && <button type="button" onClick={() => setConfirming(true)} aria-label={`Delete ${job.name}`}>Delete</button>}
        {confirming && (
          <span role="group" aria-label={`Confirm deleting ${job.name}`} className="actions">
            <span>Delete "{job.name}" and its run log?</span>
            <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>Yes, delete</button>
            <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
          </span>
        )}
      </div>
      <ProblemNote error={error} />
    </div>
  );
}
