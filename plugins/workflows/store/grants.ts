import { newId } from '../../../kernel/tenancy/ids.ts';
import type { Sql } from './sql.ts';

/** A durable approval scope (migrations/007-action-grants.ts). */
export interface GrantRow {
  id: string;
  entity_id: string;
  owner_id: string;
  action: string;
  workflow_id: string;
  binding_id: string | null;
  max_uses: number | null;
  uses: number;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
  origin_run_id: string;
  origin_step_id: string;
  approved_by: string;
  created_at: Date;
}

/** Whose grant, for what, where: the run a step belongs to decides all of it. */
export interface GrantScope {
  entity_id: string;
  owner_id: string;
  action: string;
  workflow_id: string;
  binding_id: string | null;
}

export interface RunStep {
  run_id: string;
  step_id: string;
}

const VALID = `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AND (max_uses IS NULL OR uses < max_uses)`;

/** Grants: each statement names entity_id; a use is one statement, so concurrent runs never overspend one. */
export class GrantStore {
  constructor(private readonly sql: Sql) {}

  /** The grant this run step already used (a repeat of the step uses nothing again). */
  usedBy(scope: GrantScope, at: RunStep): Promise<GrantRow | undefined> {
    return this.sql.one<GrantRow>(
      `SELECT g.* FROM workflow_action_grant_uses u JOIN workflow_action_grants g ON g.id = u.grant_id
       WHERE u.run_id = $1 AND u.step_id = $2 AND g.entity_id = $3 AND g.action = $4`,
      [at.run_id, at.step_id, scope.entity_id, scope.action],
    );
  }

  /** Takes one use of the newest valid grant of this scope (revoked, expired and used-up ones are not valid); undefined when there is none. */
  use(scope: GrantScope, at: RunStep): Promise<GrantRow | undefined> {
    return this.sql.one<GrantRow>(
      `WITH g AS (
         UPDATE workflow_action_grants SET uses = uses + 1
         WHERE id = (SELECT id FROM workflow_action_grants
                     WHERE entity_id = $1 AND owner_id = $2 AND action = $3 AND workflow_id = $4 AND binding_id IS NOT DISTINCT FROM $5::uuid AND ${VALID}
                     ORDER BY created_at DESC LIMIT 1 FOR UPDATE)
           AND ${VALID}
         RETURNING *
       ), u AS (
         INSERT INTO workflow_action_grant_uses (grant_id, run_id, step_id) SELECT id, $6, $7 FROM g ON CONFLICT DO NOTHING
       ) SELECT * FROM g`,
      [scope.entity_id, scope.owner_id, scope.action, scope.workflow_id, scope.binding_id, at.run_id, at.step_id],
    );
  }

  /**
   * The grant an approved step creates, with that step's own use recorded: once per origin run
   * step (a repeat of the step answers the grant it created).
   */
  async create(scope: GrantScope, at: RunStep, opts: { expires_in_seconds: number | null; max_uses: number | null; approved_by: string }): Promise<GrantRow> {
    await this.sql.exec(
      `WITH g AS (
         INSERT INTO workflow_action_grants (id, entity_id, owner_id, action, workflow_id, binding_id, max_uses, uses, expires_at, origin_run_id, origin_step_id, approved_by)
         VALUES ($1, $2, $3, $4, $5, $6::uuid, $7::integer, 1, CASE WHEN $8::integer IS NULL THEN NULL ELSE now() + make_interval(secs => $8::integer) END, $9, $10, $11)
         ON CONFLICT (origin_run_id, origin_step_id) DO NOTHING RETURNING id
       ) INSERT INTO workflow_action_grant_uses (grant_id, run_id, step_id) SELECT id, $9, $10 FROM g`,
      [newId(), scope.entity_id, scope.owner_id, scope.action, scope.workflow_id, scope.binding_id, opts.max_uses, opts.expires_in_seconds, at.run_id, at.step_id, opts.approved_by],
    );
    const row = await this.sql.one<GrantRow>('SELECT * FROM workflow_action_grants WHERE entity_id = $1 AND origin_run_id = $2 AND origin_step_id = $3', [scope.entity_id, at.run_id, at.step_id]);
    if (!row) throw new Error('the grant just created could not be read back');
    return row;
  }

  get(entityId: string, id: string): Promise<GrantRow | undefined> {
    return this.sql.one<GrantRow>('SELECT * FROM workflow_action_grants WHERE entity_id = $1 AND id = $2', [entityId, id]);
  }

  /** The owner's grants, newest first; `active` keeps only those still usable. */
  async list(entityId: string, ownerId: string, filter: { action?: string; binding_id?: string; active?: boolean }, limit: number, offset: number): Promise<{ items: GrantRow[]; total: number }> {
    const where = ['entity_id = $1', 'owner_id = $2'];
    const params: unknown[] = [entityId, ownerId];
    if (filter.action) where.push(`action = $${params.push(filter.action)}`);
    if (filter.binding_id) where.push(`binding_id = $${params.push(filter.binding_id)}::uuid`);
    if (filter.active) where.push(VALID);
    const rows = await this.sql.rows<GrantRow & { total_count: string }>(
      `SELECT *, count(*) OVER () AS total_count FROM workflow_action_grants WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.push(limit)} OFFSET $${params.push(offset)}`,
      params,
    );
    return { items: rows.map(({ total_count: _, ...r }) => r), total: rows.length ? Number(rows[0].total_count) : 0 };
  }

  /** Revokes the owner's grant (a revoked one stays as it was); undefined when it is not theirs. */
  async revoke(entityId: string, id: string, ownerId: string): Promise<GrantRow | undefined> {
    await this.sql.exec('UPDATE workflow_action_grants SET revoked_at = now(), revoked_by = $3 WHERE entity_id = $1 AND id = $2 AND owner_id = $3 AND revoked_at IS NULL', [entityId, id, ownerId]);
    const row = await this.get(entityId, id);
    return row?.owner_id === ownerId ? row : undefined;
  }
}
