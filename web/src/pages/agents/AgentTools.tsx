import { useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useWorkspaces } from '../../hooks/queries';
import { Empty, QueryView } from '../../ui/states';
import { agentKeys } from './agent-queries';

const DECISION_TEXT = { allow: 'allowed', ask: 'asks a person', deny: 'denied' } as const;

/** The agent's bound tools with the policy the runtime applies to them in a chosen workspace. */
export function AgentTools({ agentId, defaultWorkspace }: { agentId: string; defaultWorkspace: string | null }): ReactNode {
  const [workspaceId, setWorkspaceId] = useState<string | undefined>(defaultWorkspace ?? undefined);
  const workspaces = useWorkspaces();
  const tools = useQuery({
    queryKey: agentKeys.tools(agentId, workspaceId),
    queryFn: () => unwrap(api.GET('/api/v1/agents/{agent_id}/tools', { params: { path: { agent_id: agentId }, query: workspaceId ? { workspace_id: workspaceId } : {} } })),
  });
  return (
    <section aria-labelledby="agent-tools">
      <h2 id="agent-tools">Tools and their policy</h2>
      <label>
        In workspace
        <select value={workspaceId ?? ''} onChange={(e) => setWorkspaceId(e.target.value || undefined)}>
          <option value="">No workspace (defaults)</option>
          {workspaces.data?.items.map((w) => (
            <option key={w.id} value={w.id}>{w.name}</option>
          ))}
        </select>
      </label>
      <QueryView query={tools} what="tools">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No tools bound: edit the agent and name some.</Empty>
          ) : (
            <table>
              <thead>
                <tr><th scope="col">Tool</th><th scope="col">Policy</th><th scope="col">Why</th><th scope="col">Risk</th><th scope="col">Side effects</th><th scope="col">Loaded</th></tr>
              </thead>
              <tbody>
                {data.items.map((t) => (
                  <tr key={t.name}>
                    <td><code>{t.name}</code>{t.description && <div className="muted">{t.description}</div>}</td>
                    <td><span className={`badge policy-${t.policy.decision}`}>{DECISION_TEXT[t.policy.decision]}</span></td>
                    <td>{t.policy.reason}</td>
                    <td>{t.risk ?? '—'}</td>
                    <td>{t.side_effect ?? '—'}</td>
                    <td>{t.available ? 'yes' : 'no (not loaded now)'}</td>
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
