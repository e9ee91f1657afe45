import { useCallback, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type ResponseOf } from '../../api/client';
import { keys } from '../../hooks/queries';
import { useAnnounce } from '../../ui/announcer';
import { ProblemNote, QueryView } from '../../ui/states';
import { RunStatus } from './RunStatus';
import { useRunEvents, type RunEvent } from './run-events';
import { RunGraph } from './RunGraph';
import type { Step } from '../../graph/types';

type Run = ResponseOf<'/api/v1/workflows/runs/{run_id}', 'get'>;
const OPEN = new Set(['pending', 'running', 'paused']);

export default function RunPage(): ReactNode {
  const { runId = '' } = useParams();
  const run = useQuery({ queryKey: keys.run(runId), queryFn: () => unwrap(api.GET('/api/v1/workflows/runs/{run_id}', { params: { path: { run_id: runId } } })) });
  return <QueryView query={run} what="run">{(r) => <RunView run={r} />}</QueryView>;
}

/** A run: each step's status live over SSE, receipts, the retry family; cancel, retry, approve or reject. */
function RunView({ run }: { run: Run }): ReactNode {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [live, setLive] = useState<Record<string, string>>({});
  const onEvent = useCallback(
    (e: RunEvent) => {
      const step = typeof e.data.step_id === 'string' ? e.data.step_id : undefined;
      if (e.type === 'step.started' && step) setLive((l) => ({ ...l, [step]: 'running' }));
      if (e.type === 'step.finished' && step) setLive((l) => ({ ...l, [step]: String(e.data.status ?? 'completed') }));
      if (e.type === 'step.skipped' && step) setLive((l) => ({ ...l, [step]: 'skipped' }));
      if (e.type.startsWith('run.')) {
        if (e.type === 'run.paused') announce('The run is paused.');
        if (e.type === 'run.finished') announce(`The run ${String(e.data.status ?? 'finished')}.`);
        void queryClient.invalidateQueries({ queryKey: keys.run(run.id) });
      }
    },
    [announce, queryClient, run.id],
  );
  const { connected, error: streamError } = useRunEvents(run.id, onEvent, OPEN.has(run.status));
  const family = useQuery({ queryKey: [...keys.run(run.id), 'family'], queryFn: () => unwrap(api.GET('/api/v1/workflows/runs/{run_id}/family', { params: { path: { run_id: run.id } } })) });
  const done = () => void queryClient.invalidateQueries({ queryKey: keys.runs });
  const cancel = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/workflows/runs/{run_id}/cancel', { params: { path: { run_id: run.id } } })), onSettled: done });
  const retry = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/workflows/runs/{run_id}/retry', { params: { path: { run_id: run.id } }, body: {} })), onSettled: done });
  const receipts = useMemo(() => new Map((run.steps ?? []).map((s) => [s.step_id, s])), [run.steps]);
  const snapshot = useMemo<Step[]>(() => run.snapshot?.steps ?? [], [run.snapshot]);
  const statusOf = useCallback((id: string) => live[id] ?? receipts.get(id)?.status ?? 'pending', [live, receipts]);
  const [focused, setFocused] = useState<string>();
  const focusReceipt = useCallback((id: string) => {
    setFocused(id);
    document.getElementById(`receipt-${id}`)?.focus();
  }, []);
  return (
    <article>
      <div className="page-head">
        <h1>Run {run.id.slice(0, 8)}</h1>
        <RunStatus status={run.status} />
      </div>
      <p className="muted">
        {run.trigger_type} · started {run.started_at ? new Date(run.started_at).toLocaleString() : '—'}
        {OPEN.has(run.status) && <> · {connected ? 'live' : 'connecting…'}</>}
      </p>
      <div className="actions">
        {OPEN.has(run.status) && <button type="button" onClick={() => cancel.mutate()}>Cancel run</button>}
        {(run.status === 'failed' || run.status === 'cancelled') && <button type="button" onClick={() => retry.mutate()}>Retry</button>}
      </div>
      <ProblemNote error={cancel.error ?? retry.error ?? streamError} />
      {run.status === 'paused' && <Decision run={run} />}
      <h2>Graph</h2>
      <RunGraph steps={snapshot} statusOf={statusOf} onSelect={focusReceipt} />
      <h2>Steps</h2>
      <ol className="steps">
        {snapshot.map((s) => {
          const status = statusOf(s.id);
          const receipt = receipts.get(s.id);
          return (
            <li key={s.id} id={`receipt-${s.id}`} tabIndex={-1} className={`card${focused === s.id ? ' focused' : ''}`} data-status={status}>
              <strong>{s.name || s.id}</strong> <span className="muted">({s.type})</span> <RunStatus status={status} />
              {s.next && s.next.length > 0 && <span className="muted"> → {s.next.join(', ')}</span>}
              {receipt?.error != null && <pre className="problem-note">{JSON.stringify(receipt.error, null, 2)}</pre>}
              {receipt?.output !== undefined && (
                <details>
                  <summary>Output</summary>
                  <pre>{JSON.stringify(receipt.output, null, 2)}</pre>
                </details>
              )}
            </li>
          );
        })}
      </ol>
      <h2>Family</h2>
      <QueryView query={family} what="run family">
        {(f) => (
          <ul className="list">
            {(f.runs as { id: string; status: string }[]).map((r) => (
              <li key={r.id}>{r.id === run.id ? <strong>{r.id.slice(0, 8)}</strong> : <Link to={`/runs/${r.id}`}>{r.id.slice(0, 8)}</Link>} <RunStatus status={r.status} /></li>
            ))}
          </ul>
        )}
      </QueryView>
    </article>
  );
}

/** An approval wait: only the run owner's explicit decision releases it (anyone else gets 403, said here). */
function Decision({ run }: { run: Run }): ReactNode {
  const queryClient = useQueryClient();
  const [comment, setComment] = useState('');
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'reject') => unwrap(api.POST('/api/v1/workflows/runs/{run_id}/resume', { params: { path: { run_id: run.id } }, body: { decision, ...(comment ? { comment } : {}) } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.run(run.id) }),
  });
  const submit = (e: FormEvent) => e.preventDefault();
  return (
    <form className="form card" onSubmit={submit} aria-label="Decision">
      <h2>Waiting for a decision</h2>
      <label>Comment<textarea value={comment} onChange={(e) => setComment(e.target.value)} /></label>
      <ProblemNote error={decide.error} />
      <div className="actions">
        <button type="button" onClick={() => decide.mutate('approve')} disabled={decide.isPending}>Approve</button>
        <button type="button" className="danger" onClick={() => decide.mutate('reject')} disabled={decide.isPending}>Reject</button>
      </div>
    </form>
  );
}
