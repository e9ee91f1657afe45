import { createHash, randomBytes } from 'node:crypto';
import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { json, type Sql } from './sql.ts';
import type { DefinitionRow } from './definitions.ts';

export type TriggerType = 'manual' | 'webhook' | 'schedule' | 'event' | 'workspace_event';

export interface BindingRow {
  id: string;
  entity_id: string;
  workflow_id: string;
  workspace_id: string;
  trigger_type: TriggerType;
  trigger: Record<string, unknown>;
  event_name: string | null;
  variables: Record<string, unknown>;
  enabled: boolean;
  chat_entrypoint: boolean;
  webhook_token_hash: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface BindingInput {
  workflow_id: string;
  workspace_id: string;
  trigger: { type: TriggerType; event?: string; [key: string]: unknown };
  variables?: Record<string, unknown>;
  enabled?: boolean;
  chat_entrypoint?: boolean;
}

/** A webhook token: 256 random bits, URL-safe. Only its SHA-256 is stored. */
export function newWebhookToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function bindingView(row: BindingRow): Record<string, unknown> {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    workspace_id: row.workspace_id,
    trigger: { ...row.trigger, type: row.trigger_type },
    variables: row.variables,
    enabled: row.enabled,
    chat_entrypoint: row.chat_entrypoint,
    has_webhook_token: row.webhook_token_hash !== null,
    created_by: row.created_by,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

function notFound(id: string): Error {
  return ERRORS.NOT_FOUND(`No workflow binding with id '${id}'.`, { resource: 'workflow_binding', id });
}

export type BindingWithDefinition = BindingRow & { definition: DefinitionRow };

export class BindingStore {
  constructor(private readonly sql: Sql) {}

  async list(entityId: string, filter: { workspace_id?: string; workflow_id?: string }, limit: number, offset: number): Promise<{ items: BindingRow[]; total: number }> {
    const where = ['entity_id = $1'];
    const params: unknown[] = [entityId];
    if (filter.workspace_id) {
      params.push(filter.workspace_id);
      where.push(`workspace_id::text = $${params.length}`);
    }
    if (filter.workflow_id) {
      params.push(filter.workflow_id);
      where.push(`workflow_id::text = $${params.length}`);
    }
    const items = await this.sql.rows<BindingRow>(`SELECT * FROM workflow_bindings WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, params);
    const count = await this.sql.one<{ n: string }>(`SELECT count(*) AS n FROM workflow_bindings WHERE ${where.join(' AND ')}`, params);
    return { items, total: Number(count?.n ?? 0) };
  }

  async get(entityId: string, id: string): Promise<BindingRow> {
    const row = isUuid(id) ? await this.sql.one<BindingRow>('SELECT * FROM workflow_bindings WHERE entity_id = $1 AND id = $2', [entityId, id]) : undefined;
    if (!row) throw notFound(id);
    return row;
  }

  async create(entityId: string, userId: string, input: BindingInput, tokenHash: string | null): Promise<BindingRow> {
    const { type, ...rest } = input.trigger;
    const row = await this.sql.one<BindingRow>(
      `INSERT INTO workflow_bindings (id, entity_id, workflow_id, workspace_id, trigger_type, trigger, event_name, variables, enabled, chat_entrypoint, webhook_token_hash, created_by)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::jsonb, $9, $10, $11, $12) RETURNING *`,
      [newId(), entityId, input.workflow_id, input.workspace_id, type, json(rest), eventNameOf(input.trigger), json(input.variables ?? {}), input.enabled ?? true, input.chat_entrypoint ?? false, tokenHash, userId],
    );
    return row!;
  }

  async update(entityId: string, id: string, next: BindingInput, tokenHash: string | null): Promise<BindingRow> {
    const { type, ...rest } = next.trigger;
    const row = await this.sql.one<BindingRow>(
      `UPDATE workflow_bindings SET workflow_id = $3, workspace_id = $4, trigger_type = $5, trigger = $6::jsonb, event_name = $7, variables = $8::jsonb,
         enabled = $9, chat_entrypoint = $10, webhook_token_hash = $11, updated_at = now()
       WHERE entity_id = $1 AND id = $2 RETURNING *`,
      [entityId, id, next.workflow_id, next.workspace_id, type, json(rest), eventNameOf(next.trigger), json(next.variables ?? {}), next.enabled ?? true, next.chat_entrypoint ?? false, tokenHash],
    );
    if (!row) throw notFound(id);
    return row;
  }

  async remove(entityId: string, id: string): Promise<void> {
    const n = isUuid(id) ? await this.sql.exec('DELETE FROM workflow_bindings WHERE entity_id = $1 AND id = $2', [entityId, id]) : 0;
    if (n === 0) throw notFound(id);
  }

  /** The binding a webhook token opens (any entity: the token is the credential), with its definition. */
  async byTokenHash(hash: string): Promise<BindingWithDefinition | undefined> {
    return this.sql.one<BindingWithDefinition>(
      `SELECT b.*, to_jsonb(w.*) AS definition FROM workflow_bindings b JOIN workflows w ON w.id = b.workflow_id AND w.entity_id = b.entity_id
       WHERE b.webhook_token_hash = $1`,
      [hash],
      'wf_binding_by_token',
    );
  }

  /** The workspace's enabled chat entrypoint, with its definition (at most one: see otherChatEntrypoint). */
  async chatEntrypoint(entityId: string, workspaceId: string): Promise<BindingWithDefinition | undefined> {
    return this.sql.one<BindingWithDefinition>(
      `SELECT b.*, to_jsonb(w.*) AS definition FROM workflow_bindings b JOIN workflows w ON w.id = b.workflow_id AND w.entity_id = b.entity_id
       WHERE b.entity_id = $1 AND b.workspace_id::text = $2 AND b.enabled AND b.chat_entrypoint
       ORDER BY b.updated_at DESC LIMIT 1`,
      [entityId, workspaceId],
    );
  }

  /** Another enabled chat entrypoint of the workspace than `exceptId`, if any. */
  async otherChatEntrypoint(entityId: string, workspaceId: string, exceptId: string | null): Promise<string | undefined> {
    const row = await this.sql.one<{ id: string }>(
      `SELECT id FROM workflow_bindings WHERE entity_id = $1 AND workspace_id::text = $2 AND enabled AND chat_entrypoint AND id::text <> $3 LIMIT 1`,
      [entityId, workspaceId, exceptId ?? ''],
    );
    return row?.id;
  }

  /** Enabled bindings of an entity listening for this event (`workspace_event` ones only in that workspace). */
  async forEvent(entityId: string, event: string, workspaceId: string | null): Promise<BindingWithDefinition[]> {
    return this.sql.rows<BindingWithDefinition>(
      `SELECT b.*, to_jsonb(w.*) AS definition FROM workflow_bindings b JOIN workflows w ON w.id = b.workflow_id AND w.entity_id = b.entity_id
       WHERE b.entity_id = $1 AND b.enabled AND b.trigger_type IN ('event', 'workspace_event')
         AND (b.event_name = $2 OR b.event_name = '*' OR (right(b.event_name, 2) = '.*' AND starts_with($2, left(b.event_name, -1))))
         AND (b.trigger_type = 'event' OR b.workspace_id::text = $3)`,
      [entityId, event, workspaceId ?? ''],
    );
  }

  /** Rows of a deleted workspace go with it (the `workspace.deleted` contract). */
  async removeWorkspace(entityId: string, workspaceId: string): Promise<void> {
    await this.sql.exec('DELETE FROM workflow_bindings WHERE entity_id = $1 AND workspace_id::text = $2', [entityId, workspaceId]);
    await this.sql.exec(
      `WITH gone AS (DELETE FROM workflow_runs WHERE entity_id = $1 AND workspace_id::text = $2 RETURNING id),
         r AS (DELETE FROM workflow_step_receipts WHERE run_id IN (SELECT id FROM gone))
       DELETE FROM workflow_run_events WHERE run_id IN (SELECT id FROM gone)`,
      [entityId, workspaceId],
    );
  }
}

function eventNameOf(trigger: BindingInput['trigger']): string | null {
  return (trigger.type === 'event' || trigger.type === 'workspace_event') && typeof trigger.event === 'string' ? trigger.event : null;
}
