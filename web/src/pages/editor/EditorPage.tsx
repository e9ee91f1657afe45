import type { ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys } from '../../hooks/queries';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { ProblemNote, QueryView } from '../../ui/states';

/**
 * A workflow's definition, read-only for now (the canvas editor is not built yet): its steps
 * in order with their connections, and a manual run in the current workspace.
 */
export default function EditorPage(): ReactNode {
  const { workflowId = '' } = useParams();
  const { workspaceId } = useCurrentWorkspace();
  const navigate = useNavigate();
  const wf = useQuery({ queryKey: keys.workflow(workflowId), queryFn: () => unwrap(api.GET('/api/v1/workflows/{id}', { params: { path: { id: workflowId } } })) });
  const run = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/workflows/{id}/run', { params: { path: { id: workflowId } }, body: { input: {}, ...(workspaceId ? { workspace_id: workspaceId } : {}) } })),
    onSuccess: (r) => navigate(`/runs/${(r as { run_id: string }).run_id}`),
  });
  return (
    <QueryView query={wf} what="workflow">
      {(w) => (
        <section>
          <div className="page-head">
            <h1>{w.name}</h1>
            <div className="actions">
              <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>Run now</button>
              <Link to={`/runs?workflow_id=${w.id}`}>Runs</Link>
            </div>
          </div>
          <ProblemNote error={run.error} />
          <p className="muted">Version {w.version} · trigger {w.trigger_type}</p>
          <ol className="steps">
            {w.steps.map((s) => (
              <li key={s.id} className="card">
                <strong>{s.name || s.id}</strong> <span className="muted">({s.type})</span>
                {s.next.length > 0 && <span className="muted"> → {s.next.join(', ')}</span>}
              </li>
            ))}
          </ol>
        </section>
      )}
    </QueryView>
  );
}
