import type { ActivityAttributes, WorkspaceAttributes, WorkspaceRow } from './model.ts';

/** A workspace as the API shows it: its columns without the settings documents, dates as ISO strings. */
export type WorkspaceView = Pick<WorkspaceAttributes, 'id' | 'entity_id' | 'name' | 'description' | 'category' | 'status' | 'provider_access' | 'created_by' | 'version'> & {
  archived_at: string | null;
  created_at: string;
  updated_at: string;
};

/** An activity entry as the API shows it (the entity is the caller's, so it is left out). */
export type ActivityView = Omit<ActivityAttributes, 'entity_id' | 'created_at'> & { created_at: string };

export function workspaceView(row: WorkspaceRow): WorkspaceView {
  return {
    id: row.id,
    entity_id: row.entity_id,
    name: row.name,
    description: row.description,
    category: row.category,
    status: row.status,
    provider_access: row.provider_access,
    archived_at: row.archived_at ? new Date(row.archived_at).toISOString() : null,
    created_by: row.created_by,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    version: row.version,
  };
}

export function activityView(row: ActivityAttributes): ActivityView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    kind: row.kind,
    summary: row.summary,
    data: row.data ?? {},
    created_at: new Date(row.created_at).toISOString(),
  };
}

const dateTime = { type: 'string', format: 'date-time' };

export const WORKSPACE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    entity_id: { type: 'string' },
    name: { type: 'string', minLength: 1, maxLength: 120 },
    description: { type: 'string', maxLength: 2000 },
    category: { type: 'string', maxLength: 64 },
    status: { type: 'string', enum: ['active', 'paused'] },
    provider_access: { type: 'string', enum: ['none', 'granted'] },
    archived_at: { anyOf: [dateTime, { type: 'null' }] },
    created_by: { type: ['string', 'null'] },
    created_at: dateTime,
    updated_at: dateTime,
    version: { type: 'integer', minimum: 1, description: 'Incremented on every write to the workspace (including its operating model and governance).' },
  },
  required: ['id', 'entity_id', 'name', 'description', 'category', 'status', 'provider_access', 'archived_at', 'created_by', 'created_at', 'updated_at', 'version'],
};

export const ACTIVITY_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    workspace_id: { type: 'string', format: 'uuid' },
    actor_type: { type: 'string', enum: ['user', 'agent', 'system'] },
    actor_id: { type: 'string' },
    kind: { type: 'string' },
    summary: { type: 'string' },
    data: { type: 'object' },
    created_at: dateTime,
  },
  required: ['id', 'workspace_id', 'actor_type', 'actor_id', 'kind', 'summary', 'data', 'created_at'],
};
