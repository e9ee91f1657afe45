import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Empty, QueryView } from '../../ui/states';

const FAILED = new Set(['failed', 'reload_failed']);

/** Capability packages (failed first, with their error) and workers; polled, so a hot-loaded package shows without a reload. */
export function OperatorsPage(): ReactNode {
  const packages = useQuery({ queryKey: ['capability-packages'], queryFn: () => unwrap(api.GET('/api/v1/capability-packages')), refetchInterval: 3_000 });
  const workers = useQuery({ queryKey: ['workers'], queryFn: () => unwrap(api.GET('/api/v1/workers', { params: { query: { limit: 200 } } })), refetchInterval: 5_000 });
  return (
    <section>
      <h1>Operators</h1>
      <h2 id="packages-title">Capability packages</h2>
      <QueryView query={packages} what="capability packages">
        {(data) => {
          const rows = [...data.items].sort((a, b) => Number(FAILED.has(b.state)) - Number(FAILED.has(a.state)) || a.name.localeCompare(b.name));
          return (
            <table aria-labelledby="packages-title">
              <thead>
                <tr><th scope="col">Package</th><th scope="col">Kind</th><th scope="col">Version</th><th scope="col">Node</th><th scope="col">State</th><th scope="col">Error</th></tr>
              </thead>
              <tbody>
                {rows.map((p) => (
                  <tr key={`${p.node}/${p.name}`} className={FAILED.has(p.state) ? 'row-failed' : undefined}>
                    <td>{p.name}</td>
                    <td>{p.kind ?? '—'}</td>
                    <td>{p.version ?? '—'}</td>
                    <td>{p.node}</td>
                    <td>{FAILED.has(p.state) ? <strong>⚠ {p.state}</strong> : p.state}</td>
                    <td>{p.error ? <><code>{p.error.code}</code> {p.error.message}</> : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          );
        }}
      </QueryView>
      <h2 id="workers-title">Workers</h2>
      <QueryView query={workers} what="workers">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No worker has reported yet.</Empty>
          ) : (
            <table aria-labelledby="workers-title">
              <thead>
                <tr><th scope="col">Worker</th><th scope="col">Roles</th><th scope="col">Queues</th><th scope="col">In flight</th><th scope="col">Last heartbeat</th><th scope="col">Status</th></tr>
              </thead>
              <tbody>
                {data.items.map((w) => (
                  <tr key={w.worker_id}>
                    <td>{w.worker_id}</td>
                    <td>{w.roles.join(', ')}</td>
                    <td>{w.queues.join(', ')}</td>
                    <td>{w.in_flight ?? '—'}</td>
                    <td>{w.last_heartbeat_at ? new Date(w.last_heartbeat_at).toLocaleString() : '—'}</td>
                    <td>{w.status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </section>
  );
}
