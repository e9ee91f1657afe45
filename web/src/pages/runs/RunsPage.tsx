import { useEffect, useRef, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys } from '../../hooks/queries';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { useAnnounce } from '../../ui/announcer';
import { Empty, QueryView } from '../../ui/states';
import { RunStatus } from './RunStatus';
import { Pager } from '../../ui/Pager';

const PAGE = 50;
const STATUSES = ['pending', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
const TRIGGERS = ['manual', 'webhook', 'schedule', 'event', 'workspace_event', 'retry', 'subworkflow'] as const;
/**
 * Polled, not streamed: the API's SSE is per run (`/runs/{id}/events`); there is no stream of new
 * runs, and one small list read every second keeps "a new run listed within 2 s" (the read's own
 * time included) with no extra server state. Only the first page polls; older pages do not change.
 */
const POLL_MS = 1_000;

/** Run history with the API's filters (status, trigger, workflow, binding, workspace) and paging, kept in the URL. */
export default function RunsPage(): ReactNode {
  const [params, setParams] = useSearchParams();
  const { workspaceId } = useCurrentWorkspace();
  const announce = useAnnounce();
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    if (key !== 'offset') next.delete('offset');
    setParams(next);
  };
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const pick = <T extends string>(key: string, allowed: readonly T[]) => (allowed as readonly string[]).includes(params.get(key) ?? '') ? (params.get(key) as T) : undefined;
  const query = {
    status: pick('status', STATUSES),
    trigger_type: pick('trigger_type', TRIGGERS),
    workflow_id: params.get('workflow_id') || undefined,
    binding_id: params.get('binding_id') || undefined,
    workspace_id: params.get('workspace_id') || workspaceId || undefined,
    limit: PAGE,
    offset,
  };
  const runs = useQuery({ queryKey: [...keys.runs, query], queryFn: () => unwrap(api.GET('/api/v1/workflows/runs', { params: { query } })), refetchInterval: offset === 0 ? POLL_MS : false, placeholderData: keepPreviousData });
  const workflows = useQuery({ queryKey: keys.workflows, queryFn: () => unwrap(api.GET('/api/v1/workflows', { params: { query: { limit: 200 } } })) });
  const nameOf = (id: string) => workflows.data?.items.find((w) => w.id === id)?.name ?? id.slice(0, 8);
  const bindingQuery = { workspace_id: query.workspace_id, limit: 200 };
  const bindings = useQuery({ queryKey: [...keys.bindings, bindingQuery], queryFn: () => unwrap(api.GET('/api/v1/workflows/bindings', { params: { query: bindingQuery } })) });
  // a run that appears while the page is open is read out
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    const items = runs.data?.items;
    if (!items) return;
    if (seen.current) {
      const fresh = items.filter((r) => !seen.current!.has(r.id));
      if (fresh.length === 1) announce(`New run ${fresh[0]!.id.slice(0, 8)}: ${fresh[0]!.status}`);
      else if (fresh.length > 1) announce(`${fresh.length} new runs`);
    }
    seen.current = new Set(items.map((r) => r.id));
  }, [runs.data, announce]);
  return (
    <section>
      <h1>Runs</h1>
      {/* each select is named by aria-label: a wrapping label would also read out every option */}
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>Status
          <select aria-label="Status" value={query.status ?? ''} onChange={(e) => set('status', e.target.value)}>
            <option value="">any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>Trigger
          <select aria-label="Trigger" value={query.trigger_type ?? ''} onChange={(e) => set('trigger_type', e.target.value)}>
            <option value="">any</option>
            {TRIGGERS.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>Workflow
          <select aria-label="Workflow" value={query.workflow_id ?? ''} onChange={(e) => set('workflow_id', e.target.value)}>
            <option value="">any</option>
            {workflows.data?.items.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
          </select>
        </label>
        <label>Binding
          <select aria-label="Binding" value={query.binding_id ?? ''} onChange={(e) => set('binding_id', e.target.value)}>
            <option value="">any</option>
            {bindings.data?.items.map((b) => <option key={b.id} value={b.id}>{nameOf(b.workflow_id)} · {b.trigger.type} · {b.id.slice(0, 8)}</option>)}
          </select>
        </label>
      </form>
      <QueryView query={runs} what="runs">
        {(data) =>
          data.items.length === 0 ? (
            <Empty action={<Link to="/workflows">Start a workflow</Link>}>No runs match.</Empty>
          ) : (
            <>
              <table>
                <thead><tr><th scope="col">Run</th><th scope="col">Workflow</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Started</th><th scope="col">Finished</th></tr></thead>
                <tbody>
                  {data.items.map((r) => (
                    <tr key={r.id}>
                      <td><Link to={`/runs/${r.id}`} aria-label={`Run ${r.id}`}>{r.id.slice(0, 8)}</Link></td>
                      <td>{r.workflow_id ? nameOf(r.workflow_id) : '—'}</td>
                      <td><RunStatus status={r.status} /></td>
                      <td>{r.trigger_type}</td>
                      <td>{r.started_at ? new Date(r.started_at).toLocaleString() : '—'}</td>
                      <td>{r.finished_at ? new Date(r.finished_at).toLocaleString() : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager offset={offset} pageSize={PAGE} shown={data.items.length} total={data.total} onOffset={(o) => set('offset', String(o))} words={['Newer', 'Older']} />
            </>
          )
        }
      </QueryView>
    </section>
  );
}
