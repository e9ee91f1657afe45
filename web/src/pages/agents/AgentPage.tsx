import { useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useAnnounce } from '../../ui/announcer';
import { MutationConfirm } from '../../ui/MutationConfirm';
import { QueryView } from '../../ui/states';
import { AgentForm, fieldsOf, type AgentFields } from './AgentForm';
import { AgentTools } from './AgentTools';
import { agentKeys, type Agent, type AgentList } from './agent-queries';

/** One agent: what it is, edit, delete (confirmed), its tools under the workspace policy, its runs. */
export default function AgentPage(): ReactNode {
  const { agentId = '' } = useParams();
  const agent = useQuery({ queryKey: agentKeys.agent(agentId), queryFn: () => unwrap(api.GET('/api/v1/agents/{agent_id}', { params: { path: { agent_id: agentId } } })) });
  return <QueryView query={agent} what="agent">{(a) => <AgentDetail agent={a} />}</QueryView>;
}

function AgentDetail({ agent: a }: { agent: Agent }): ReactNode {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const announce = useAnnounce();
  const update = useMutation({
    mutationFn: (f: AgentFields) => unwrap(api.PUT('/api/v1/agents/{agent_id}', { params: { path: { agent_id: a.id } }, body: f })),
    onSuccess: () => {
      setEditing(false);
      announce('Agent saved');
      void queryClient.invalidateQueries({ queryKey: agentKeys.agents });
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/agents/{agent_id}', { params: { path: { agent_id: a.id } } })),
    onSuccess: () => {
      announce(`Agent ${a.name} deleted`);
      queryClient.removeQueries({ queryKey: agentKeys.agent(a.id) });
      // the list shows at once without it, not from the cache until its refetch answers
      queryClient.setQueriesData<AgentList>({ queryKey: [...agentKeys.agents, 'list'] }, (old) => (old ? { ...old, items: old.items.filter((x) => x.id !== a.id), total: Math.max(0, old.total - 1) } : old));
      void queryClient.invalidateQueries({ queryKey: agentKeys.agents });
      navigate('/agents');
    },
  });
  return (
    <section>
      <div className="page-head">
        <h1>{a.name} {a.is_master && <span className="badge">master</span>}</h1>
        <div className="actions">
          <button type="button" onClick={() => setEditing(true)}>Edit</button>
          <button
            type="button"
            className="danger"
            aria-haspopup="dialog"
            onClick={() => {
              remove.reset();
              setConfirming(true);
            }}
          >
            Delete
          </button>
        </div>
      </div>
      <MutationConfirm
        title={`Delete the agent "${a.name}"?`}
        confirmLabel="Delete this agent"
        mutation={remove}
        open={confirming}
        onClose={() => setConfirming(false)}
      >
        <p>The agent is deleted for good{a.is_master ? ', and its workspace is left without a master agent' : ''}. This cannot be undone.</p>
      </MutationConfirm>
      {editing ? (
        <div className="card">
          <AgentForm name="Edit agent" initial={fieldsOf(a)} submitLabel="Save" busy={update.isPending} error={update.error} onSubmit={(f) => update.mutate(f)} onCancel={() => setEditing(false)} />
        </div>
      ) : (
        <dl className="kv">
          <dt>Description</dt><dd>{a.description || '—'}</dd>
          <dt>Status</dt><dd>{a.status}</dd>
          <dt>Scope</dt><dd>{a.workspace_id ? <Link to={`/workspaces/${a.workspace_id}`}>its workspace</Link> : 'entity-wide'}</dd>
          <dt>Model</dt><dd>{a.model ?? "the key's default"}{a.api_key_id ? '' : " (the entity's default key)"}</dd>
          <dt>Round cap</dt><dd>{a.max_rounds}</dd>
          <dt>Instructions</dt><dd><pre className="prewrap">{a.instructions || '—'}</pre></dd>
          <dt>Runs</dt><dd><Link to={`/executions?agent_id=${a.id}`}>Executions of this agent</Link></dd>
        </dl>
      )}
      <AgentTools agentId={a.id} defaultWorkspace={a.workspace_id} />
    </section>
  );
}
