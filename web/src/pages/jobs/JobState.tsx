import type { ReactNode } from 'react';
import type { Job } from './job-form';

/** Enabled / paused and whether it needs attention: told in words, colour only underlines it. */
export function JobState({ job }: { job: Pick<Job, 'enabled' | 'attention' | 'consecutive_failures' | 'paused_reason' | 'missed_at'> }): ReactNode {
  return (
    <span className="job-state">
      <span className={job.enabled ? 'badge badge-ok' : 'badge'}>{job.enabled ? '● enabled' : '❚❚ paused'}</span>
      {job.attention && (
        <span className="badge badge-danger" title={job.missed_at ? `missed a run at ${new Date(job.missed_at).toLocaleString()}` : undefined}>
          ⚠ needs attention{job.consecutive_failures ? ` (${job.consecutive_failures} failed in a row)` : job.missed_at ? ' (missed a run)' : ''}
        </span>
      )}
      {!job.enabled && job.paused_reason && <span className="muted"> {job.paused_reason}</span>}
    </span>
  );
}

/** A run's status as a word with a mark. */
export function RunStatusBadge({ status }: { status: string }): ReactNode {
  const mark: Record<string, string> = { succeeded: '✓', failed: '✗', running: '▶', queued: '…', missed: '⌀', skipped: '↷' };
  return <span className={`status-${status === 'succeeded' ? 'completed' : status}`}>{mark[status] ?? ''} {status}</span>;
}
