import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import type { DefinitionBody, StepDefinition } from '../definitions/validate.ts';
import { json, type Sql } from './sql.ts';

export interface DefinitionRow {
  id: string;
  entity_id: string;
  name: string;
  description: string;
  trigger_type: string;
  steps: StepDefinition[];
  variables: Record<string, unknown>;
  version: number;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The immutable copy of a definition a run executes (its "snapshot"). */
export interface Snapshot {
  format: 1;
  workflow_id: string;
  version: number;
  name: string;
  trigger_type: string;
  steps: StepDefinition[];
  variables: Record<string, unknown>;
}

export const SNAPSHOT_FORMAT = 1;

/** A definition's snapshot: from its row in `workflows`, or from a saved version (store/version-snapshots.ts). */
export function snapshotOf(row: Pick<DefinitionRow, 'id' | 'version' | 'name' | 'trigger_type' | 'steps' | 'variables'>): Snapshot {
  return { format: SNAPSHOT_FORMAT, workflow_id: row.id, version: row.version, name: row.name, trigger_type: row.trigger_type, steps: row.steps, variables: row.variables };
}

export function definitionView(row: DefinitionRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    trigger_type: row.trigger_type,
    steps: row.steps,
    variables: row.variables,
    version: row.version,
    created_by: row.created_by,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

function notFound(id: string): Error {
  return ERRORS.NOT_FOUND(`No workflow with id '${id}'.`, { resource: 'workflow', id });
}

/** The trigger type a definition declares, else the one its entry step implies. */
export function triggerTypeOf(body: DefinitionBody, entryType: string | undefined): string {
  return body.trigger_type ?? (entryType === 'webhook' ? 'webhook' : 'manual');
}

export class DefinitionStore {
  constructor(private readonly sql: Sql) {}

  async list(entityId: string, limit: number, offset: number): Promise<{ items: DefinitionRow[]; total: number }> {
    const items = await this.sql.rows<DefinitionRow>('SELECT * FROM workflows WHERE entity_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3', [entityId, limit, offset]);
    const count = await this.sql.one<{ n: string }>('SELECT count(*) AS n FROM workflows WHERE entity_id = $1', [entityId]);
    return { items, total: Number(count?.n ?? 0) };
  }

  async find(entityId: string, id: string): Promise<DefinitionRow | undefined> {
    if (!isUuid(id)) return undefined;
    return this.sql.one<DefinitionRow>('SELECT * FROM workflows WHERE entity_id = $1 AND id = $2', [entityId, id]);
  }

  async get(entityId: string, id: string): Promise<DefinitionRow> {
    const row = await this.find(entityId, id);
    if (!row) throw notFound(id);
    return row;
  }

  /** Inserts the definition and its version 1 in one statement. */
  async create(entityId: string, userId: string, body: DefinitionBody, triggerType: string): Promise<DefinitionRow> {
    const id = newId();
    const row = await this.sql.one<DefinitionRow>(
      `WITH w AS (
         INSERT INTO workflows (id, entity_id, name, description, trigger_type, steps, variables, version, created_by)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, 1, $8) RETURNING *
       ), v AS (
         INSERT INTO workflow_versions (workflow_id, version, entity_id, definition, created_by)
         SELECT id, 1, entity_id, jsonb_build_object('name', name, 'description', description, 'trigger_type', trigger_type, 'steps', steps, 'variables', variables), created_by FROM w
       )
       SELECT * FROM w`,
      [id, entityId, body.name, body.description ?? '', triggerType, json(body.steps), json(body.variables ?? {}), userId],
    );
    return row!;
  }

  /** Replaces the definition and records the new version, in one statement. */
  async update(entityId: string, id: string, userId: string, body: DefinitionBody, triggerType: string): Promise<DefinitionRow> {
    if (!isUuid(id)) throw notFound(id);
    const row = await this.sql.one<DefinitionRow>(
      `WITH w AS (
         UPDATE workflows SET name = $3, description = $4, trigger_type = $5, steps = $6::jsonb, variables = $7::jsonb, version = version + 1, updated_at = now()
         WHERE entity_id = $1 AND id = $2 RETURNING *
       ), v AS (
         INSERT INTO workflow_versions (workflow_id, version, entity_id, definition, created_by)
         SELECT id, version, entity_id, jsonb_build_object('name', name, 'description', description, 'trigger_type', trigger_type, 'steps', steps, 'variables', variables), $8 FROM w
       )
       SELECT * FROM w`,
      [entityId, id, body.name, body.description ?? '', triggerType, json(body.steps), json(body.variables ?? {}), userId],
    );
    if (!row) throw notFound(id);
    return row;
  }

  async remove(entityId: string, id: string): Promise<void> {
    if (!isUuid(id)) throw notFound(id);
    const n = await this.sql.exec('DELETE FROM workflows WHERE entity_id = $1 AND id = $2', [entityId, id]);
    if (n === 0) throw notFound(id);
  }

  async versions(entityId: string, id: string): Promise<{ version: number; created_by: string | null; created_at: Date }[]> {
    return this.sql.rows('SELECT version, created_by, created_at FROM workflow_versions WHERE entity_id = $1 AND workflow_id = $2 ORDER BY version DESC', [entityId, id]);
  }
}
