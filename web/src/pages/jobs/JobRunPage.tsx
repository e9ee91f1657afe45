import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Empty, QueryView } from '../../ui/states';
import { jobKeys } from './job-actions';
import { RunStatusBadge } from './JobState';
import { errorText, tokens } from './JobPage';

const LIVE = new Set(['queued', 'running']);

type Step = { step_id?: string; type?: string | null; status?: string; output?: unknown; error?: unknown; started_at?: string | null; finished_at?: string | null };

/** `/jobs/:jobId/runs/:runId`: one run, the task or workflow run it produced, and its step/tool timeline (polled while it runs). */
export default function JobRunPage(): ReactNode {
  const { jobId = '', runId = '' } = useParams();
  const run = useQuery({
    queryKey: jobKeys.run(jobId, runId),
    queryFn: () => unwrap(api.GET('/api/v1/jobs/{job_id}/runs/{run_id}', { params: { path: { job_id: jobId, run_id: runId } } })),
    refetchInterval: (q) => (q.state.data && LIVE.has(q.state.data.status) ? 2_000 : false),
  });
  return (
    <section>
      <p><Link to={`/jobs/${jobId}`}>← The job</Link></p>
      <QueryView query={run} what="job run">
        {(r) => {
          const task = r.task as { id?: string; title?: string; status?: string } | null;
          const execution = r.execution as { id?: string; status?: string; workflow_id?: string } | null;
          return (
            <>
              <h1>Run {r.id.slice(r.id.lastIndexOf("-") + 1)} <RunStatusBadge status={r.status} /></h1>
              <dl className="kv card">
                <div><dt>Trigger</dt><dd>{r.trigger}{r.caught_up ? ' (caught up after downtime)' : ''}</dd></div>
                <div><dt>Scheduled for</dt><dd>{new Date(r.scheduled_for).toLocaleString()}</dd></div>
                <div><dt>Queued</dt><dd>{new Date(r.queued_at).toLocaleString()}</dd></div>
                <div><dt>Started</dt><dd>{r.started_at ? new Date(r.started_at).toLocaleString() : '—'}</dd></div>
                <div><dt>Finished</dt><dd>{r.finished_at ? new Date(r.finished_at).toLocaleString() : '—'}</dd></div>
                <div><dt>Duration</dt><dd>{r.duration_ms != null ? `${(r.duration_ms / 1000).toFixed(1)} s` : '—'}</dd></div>
                <div><dt>Attempts</dt><dd>{r.attempts ?? '—'}</dd></div>
                <div><dt>Tokens</dt><dd>{tokens(r.usage)}</dd></div>
                {r.error && <div><dt>Error</dt><dd className="status-failed">{errorText(r.error)}</dd></div>}
                <div><dt>Task</dt><dd>{task?.id ? <Link to={`/tasks/${task.id}`}>{task.title ?? task.id}</Link> : r.task_id ? <span className="muted">{r.task_id} (gone)</span> : '—'}{task?.status ? ` · ${task.status}` : ''}</dd></div>
                <div><dt>Workflow run</dt><dd>{r.workflow_run_id ? <Link to={`/runs/${r.workflow_run_id}`} aria-label={`Workflow run ${r.workflow_run_id}`}>{r.workflow_run_id.slice(0, 8)}</Link> : '—'}{execution?.status ? ` · ${execution.status}` : ''}</dd></div>
              </dl>
              <h2>Timeline</h2>
              {r.timeline.length === 0 ? (
                <Empty>{LIVE.has(r.status) ? 'Nothing has happened yet; this page follows the run.' : 'This run recorded no steps.'}</Empty>
              ) : (
                <ol className="timeline">
                  {(r.timeline as Step[]).map((s, i) => (
                    <li key={`${s.step_id ?? i}`} className="card">
                      <strong>{s.step_id ?? `step ${i + 1}`}</strong> <span className="muted">{s.type}</span> {s.status && <RunStatusBadge status={s.status === 'completed' ? 'succeeded' : s.status} />}
                      <div className="muted">{s.started_at ? new Date(s.started_at).toLocaleTimeString() : ''}{s.finished_at ? ` → ${new Date(s.finished_at).toLocaleTimeString()}` : ''}</div>
                      {s.error != null && <pre className="status-failed">{clip(s.error)}</pre>}
                      {s.output != null && <details><summary>Output</summary><pre>{clip(s.output)}</pre></details>}
                    </li>
                  ))}
                </ol>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}

function clip(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
}
