import { useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { useAnnounce } from '../../ui/announcer';
import { Empty, QueryView } from '../../ui/states';
import { AgentForm, emptyAgent, type AgentFields } from './AgentForm';
import { GenerateAgent } from './GenerateAgent';
import { agentKeys, useAgents } from './agent-queries';

/** Agents of the current workspace (and the entity-wide ones): create by hand or from a description. */
export default function AgentsPage(): ReactNode {
  const { workspaceId } = useCurrentWorkspace();
  const [mode, setMode] = useState<'none' | 'create' | 'generate'>('none');
  const list = useAgents(workspaceId);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const announce = useAnnounce();
  const create = useMutation({
    mutationFn: (f: AgentFields) => unwrap(api.POST('/api/v1/agents', { body: f })),
    onSuccess: (agent) => {
      announce(`Agent ${agent.name} saved`);
      void queryClient.invalidateQueries({ queryKey: agentKeys.agents });
      navigate(`/agents/${agent.id}`);
    },
  });
  const blank = workspaceId ? { workspace_id: workspaceId } : {};
  return (
    <section>
      <div className="page-head">
        <h1>Agents</h1>
        <div className="actions">
          <button type="button" onClick={() => setMode('create')}>New agent</button>
          <button type="button" onClick={() => setMode('generate')}>Generate from a description</button>
          <Link to="/model-keys">Model keys</Link>
        </div>
      </div>
      {mode === 'create' && (
        <div className="card">
          <h2>New agent</h2>
          <AgentForm name="New agent" initial={{ ...emptyAgent, ...blank }} submitLabel="Create agent" busy={create.isPending} error={create.error} onSubmit={(f) => create.mutate(f)} onCancel={() => setMode('none')} />
        </div>
      )}
      {mode === 'generate' && <GenerateAgent saving={create.isPending} saveError={create.error} onSave={(f) => create.mutate(f)} onCancel={() => setMode('none')} />}
      <QueryView query={list} what="agents">
        {(data) =>
          data.items.length === 0 ? (
            <Empty action={<button type="button" onClick={() => setMode('create')}>Create the first agent</button>}>No agents yet.</Empty>
          ) : (
            <table>
              <thead>
                <tr><th scope="col">Agent</th><th scope="col">Scope</th><th scope="col">Tools</th><th scope="col">Model</th><th scope="col">Status</th></tr>
              </thead>
              <tbody>
                {data.items.map((a) => (
                  <tr key={a.id}>
                    <td><Link to={`/agents/${a.id}`}>{a.name}</Link> {a.is_master && <span className="badge">master</span>}</td>
                    <td>{a.workspace_id ? 'workspace' : 'entity-wide'}</td>
                    <td>{a.tools.length ? a.tools.join(', ') : '—'}</td>
                    <td>{a.model ?? 'key default'}</td>
                    <td>{a.status}</td>
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

