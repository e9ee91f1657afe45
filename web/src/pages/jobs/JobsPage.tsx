import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Empty, QueryView } from '../../ui/states';
import { describeSchedule } from './job-form';
import { jobKeys } from './job-actions';
import { JobActions } from './JobActions';
import { JobState, RunStatusBadge } from './JobState';
import { Pager } from '../../ui/Pager';

const PAGE = 25;
export const JOB_FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'enabled', label: 'Enabled' },
  { value: 'paused', label: 'Paused' },
  { value: 'attention', label: 'Needs attention' },
] as const;
type StatusFilter = (typeof JOB_FILTERS)[number]['value'];

/** Scheduled jobs: counts per status (from the API), status filter, search and paging kept in the URL. */
export default function JobsPage(): ReactNode {
  const [params, setParams] = useSearchParams();
  const set = (key: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    if (key !== 'offset') next.delete('offset');
    setParams(next);
  };
  const status = (JOB_FILTERS.some((f) => f.value === params.get('status')) ? params.get('status') : 'all') as StatusFilter;
  const search = params.get('search') ?? '';
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const query = { status, search: search || undefined, limit: PAGE, offset };
  // polled: a fire, a failure or another person's change shows without a reload
  const jobs = useQuery({ queryKey: jobKeys.list(query), queryFn: () => unwrap(api.GET('/api/v1/jobs', { params: { query } })), refetchInterval: 5_000, placeholderData: keepPreviousData });
  const filtered = status !== 'all' || !!search;
  return (
    <section>
      <div className="page-head">
        <h1>Scheduled jobs</h1>
        <Link className="button" to="/jobs/new">New job</Link>
      </div>
      <div className="filters">
        <div role="group" aria-label="Status" className="segmented">
          {JOB_FILTERS.map((f) => (
            <button key={f.value} type="button" aria-pressed={status === f.value} onClick={() => set('status', f.value === 'all' ? undefined : f.value)}>
              {f.label} <span className="count">{jobs.data?.counts?.[f.value] ?? '–'}</span>
            </button>
          ))}
        </div>
        <form role="search" onSubmit={(e) => { e.preventDefault(); set('search', String(new FormData(e.currentTarget).get('search') ?? '').trim() || undefined); }}>
          <label>Search jobs<input type="search" name="search" defaultValue={search} key={search} /></label>
        </form>
      </div>
      <QueryView query={jobs} what="jobs">
        {(data) =>
          data.items.length === 0 ? (
            filtered ? (
              <Empty action={<button type="button" onClick={() => setParams(new URLSearchParams())}>Show all jobs</button>}>No jobs match this filter.</Empty>
            ) : (
              <Empty action={<Link to="/jobs/new">Create the first scheduled job</Link>}>No scheduled jobs yet. A job runs an agent, a workflow or a workspace routine on a schedule.</Empty>
            )
          ) : (
            <>
              <table>
                <thead><tr><th scope="col">Job</th><th scope="col">Schedule</th><th scope="col">Executor</th><th scope="col">Next run</th><th scope="col">Last run</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
                <tbody>
                  {data.items.map((j) => (
                    <tr key={j.id} className={j.attention ? 'row-failed' : undefined}>
                      <td><Link to={`/jobs/${j.id}`}>{j.name}</Link></td>
                      <td>{describeSchedule(j.schedule)}</td>
                      <td>{j.executor}</td>
                      <td>{j.next_run_at ? <time dateTime={j.next_run_at}>{new Date(j.next_run_at).toLocaleString()}</time> : '—'}</td>
                      <td>{j.last_run_status ? <RunStatusBadge status={j.last_run_status} /> : '—'}</td>
                      <td><JobState job={j} /></td>
                      <td><JobActions job={j} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager offset={offset} pageSize={PAGE} shown={data.items.length} total={data.total} onOffset={(o) => set('offset', String(o))} />
            </>
          )
        }
      </QueryView>
    </section>
  );
}
