import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type ResponseOf } from '../../api/client';

export type Agent = ResponseOf<'/api/v1/agents/{agent_id}', 'get'>;
export type AgentList = ResponseOf<'/api/v1/agents', 'get'>;
export type ModelKey = ResponseOf<'/api/v1/api-keys', 'get'>['items'][number];

export const agentKeys = {
  agents: ['agents'] as const,
  agent: (id: string) => ['agents', 'one', id] as const,
  tools: (id: string, workspaceId: string | undefined) => ['agents', 'tools', id, workspaceId ?? 'none'] as const,
  modelKeys: ['model-keys'] as const,
};

export function useAgents(workspaceId: string | undefined) {
  return useQuery({
    queryKey: [...agentKeys.agents, 'list', workspaceId ?? 'all'],
    queryFn: () => unwrap(api.GET('/api/v1/agents', { params: { query: { limit: 200, ...(workspaceId ? { workspace_id: workspaceId } : {}) } } })),
  });
}

export function useModelKeys() {
  return useQuery({ queryKey: agentKeys.modelKeys, queryFn: () => unwrap(api.GET('/api/v1/api-keys', { params: { query: { limit: 200 } } })) });
}
