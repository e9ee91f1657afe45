import type { ReactNode } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Empty, QueryView } from '../../ui/states';
import { describeSchedule, formatInZone, type Job } from './job-form';
import { jobKeys } from './job-actions';
import { JobActions } from './JobActions';
import { JobState, RunStatusBadge } from './JobState';
import { Pager } from '../../ui/Pager';

const RUN_PAGE = 20;
const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'missed', 'skipped'] as const;

/** `/jobs/:jobId`: the job, its next fire times, and its run log (polled, so a fire shows without a reload). */
export default function JobPage(): ReactNode {
  const { jobId = '' } = useParams();
  const navigate = useNavigate();
  const job = useQuery({ queryKey: jobKeys.one(jobId), queryFn: () => unwrap(api.GET('/api/v1/jobs/{job_id}', { params: { path: { job_id: jobId }, query: { next: 5 } } })), refetchInterval: 5_000 });
  return (
    <section>
      <p><Link to="/jobs">← Scheduled jobs</Link></p>
      <QueryView query={job} what="job">
        {(j) => (
          <>
            <div className="page-head">
              <h1>{j.name}</h1>
              <JobActions job={j} onDeleted={() => navigate('/jobs')} />
            </div>
            <JobSummary job={j} />
            <RunLog jobId={j.id} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function JobSummary({ job: j }: { job: Job }): ReactNode {
  return (
    <div className="grid">
      <dl className="kv card">
        <div><dt>State</dt><dd><JobState job={j} /></dd></div>
        <div><dt>Schedule</dt><dd>{describeSchedule(j.schedule)}</dd></div>
        <div><dt>Executor</dt><dd>{j.executor}</dd></div>
        <div><dt>When busy</dt><dd>{j.overlap === 'queue' ? 'queue the fire' : 'skip the fire'}</dd></div>
        {j.workspace_id && <div><dt>Workspace</dt><dd><Link to={`/workspaces/${j.workspace_id}`}>{j.workspace_id.slice(0, 8)}</Link></dd></div>}
        {j.agent_id && <div><dt>Agent</dt><dd><code>{j.agent_id}</code></dd></div>}
        <div><dt>Last run</dt><dd>{j.last_run_at ? <>{new Date(j.last_run_at).toLocaleString()} {j.last_run_status && <RunStatusBadge status={j.last_run_status} />}</> : 'never'}</dd></div>
        {j.frozen_skill && j.frozen_skill.status !== 'none' && <div><dt>Execution skill</dt><dd>{j.frozen_skill.status}{j.frozen_skill.error ? `: ${j.frozen_skill.error}` : ''}</dd></div>}
        {j.description && <div><dt>Description</dt><dd>{j.description}</dd></div>}
        {j.payload_message && <div><dt>Message</dt><dd className="pre">{j.payload_message}</dd></div>}
      </dl>
      <div className="card">
        <h2>Next fire times</h2>
        {!j.enabled ? (
          <p className="muted">Paused: it does not fire until enabled.</p>
        ) : j.next_fire_times && j.next_fire_times.length > 0 ? (
          <ol className="fire-times">
            {j.next_fire_times.map((at) => <li key={at}><time dateTime={at}>{formatInZone(at, j.schedule.timezone)}</time></li>)}
          </ol>
        ) : (
          <p className="muted">It does not fire again.</p>
        )}
      </div>
    </div>
  );
}

function RunLog({ jobId }: { jobId: string }): ReactNode {
  const [params, setParams] = useSearchParams();
  const status = (RUN_STATUSES as readonly string[]).includes(params.get('run_status') ?? '') ? (params.get('run_status') as (typeof RUN_STATUSES)[number]) : undefined;
  const offset = Math.max(0, Number(params.get('run_offset') ?? 0) || 0);
  const set = (key: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    if (key !== 'run_offset') next.delete('run_offset');
    setParams(next);
  };
  const query = { limit: RUN_PAGE, offset, ...(status ? { status } : {}) };
  const runs = useQuery({ queryKey: jobKeys.runs(jobId, query), queryFn: () => unwrap(api.GET('/api/v1/jobs/{job_id}/runs', { params: { path: { job_id: jobId }, query } })), refetchInterval: 2_000, placeholderData: keepPreviousData });
  return (
    <>
      <div className="page-head">
        <h2>Run log</h2>
        <label>Run status
          <select value={status ?? ''} onChange={(e) => set('run_status', e.target.value || undefined)}>
            <option value="">any</option>
            {RUN_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </div>
      <QueryView query={runs} what="runs">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>{status ? `No ${status} runs.` : 'No runs yet: it runs at its next fire time, or use Run now above.'}</Empty>
          ) : (
            <>
              <table>
                <thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Scheduled for</th><th scope="col">Started</th><th scope="col">Duration</th><th scope="col">Tokens</th><th scope="col">Error</th></tr></thead>
                <tbody>
                  {data.items.map((r) => (
                    <tr key={r.id}>
                      <td><Link to={`/jobs/${jobId}/runs/${r.id}`} aria-label={`Run ${r.id}`}>{r.id.slice(r.id.lastIndexOf("-") + 1)}</Link></td>
                      <td><RunStatusBadge status={r.status} />{r.caught_up ? ' (caught up)' : ''}</td>
                      <td>{r.trigger}</td>
                      <td><time dateTime={r.scheduled_for}>{new Date(r.scheduled_for).toLocaleString()}</time></td>
                      <td>{r.started_at ? new Date(r.started_at).toLocaleString() : '—'}</td>
                      <td>{r.duration_ms != null ? `${(r.duration_ms / 1000).toFixed(1)} s` : '—'}</td>
                      <td>{tokens(r.usage)}</td>
                      <td>{errorText(r.error)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager offset={offset} pageSize={RUN_PAGE} shown={data.items.length} total={data.total} onOffset={(o) => set('run_offset', String(o))} label="Run log pages" words={['Newer', 'Older']} />
            </>
          )
        }
      </QueryView>
    </>
  );
}

export function tokens(usage: unknown): string {
  if (!usage || typeof usage !== 'object') return '—';
  const u = usage as { input_tokens?: number; output_tokens?: number };
  if (u.input_tokens == null && u.output_tokens == null) return '—';
  return `${u.input_tokens ?? 0} in / ${u.output_tokens ?? 0} out`;
}

export function errorText(error: unknown): string {
  if (!error || typeof error !== 'object') return '';
  const e = error as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(': ');
}
