import type { Context } from 'moleculer';
import type { JSONSchema } from '../../../kernel/openapi/types.ts';
import { ForeignKeyConstraintError, QueryTypes } from 'sequelize';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { afterCursor, CURSOR_PARAMS, cursorPage, cursorPageSchema, defineKeyset, keysetPage, type RowsOf } from '../../../kernel/tenancy/cursor.ts';
import { PAGING_PARAMS } from '../../../kernel/tenancy/paging.ts';
import type { RecordActivityParams } from '../../../kernel/activity.ts';
import { loadWorkspace, WORKSPACE_ID_PARAM, type WorkspacesAction } from '../lookup.ts';
import type { ActivityAttributes } from '../model.ts';
import { ACTIVITY_SCHEMA, activityView } from '../views.ts';

const KIND_RULE = { type: 'string', min: 1, max: 100, pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$' } as const;
const MAX_DATA_BYTES = 16 * 1024;

/** The log's order: newest first. */
const ACTIVITY_KEYSET = defineKeyset('workspace_activity', [
  { expr: 'created_at', type: 'timestamptz', descending: true },
  { expr: 'id', type: 'uuid', descending: true },
]);

/** `GET /api/v1/workspaces/{workspace_id}/activity`: the workspace's log, newest first. */
export const activity: WorkspacesAction = {
  rest: 'GET /:workspace_id/activity',
  summary: 'Activity log of a workspace',
  description: 'Append-only, newest first; `kind` keeps the entries of one kind (e.g. workspace.updated). Pages by `offset` or by `cursor` (the `next_cursor` of the previous page).',
  tags: ['workspaces'],
  params: { ...WORKSPACE_ID_PARAM, ...PAGING_PARAMS, ...CURSOR_PARAMS, kind: { ...KIND_RULE, optional: true } },
  response: cursorPageSchema(ACTIVITY_SCHEMA) as JSONSchema,
  async handler(ctx: Context<{ workspace_id: string; limit: number; offset: number; cursor?: string; kind?: string }>) {
    const { workspace_id, limit, offset, kind } = ctx.params;
    const page = { limit, offset, after: afterCursor(ACTIVITY_KEYSET, ctx.params) };
    const row = await loadWorkspace(this, ctx, workspace_id);
    const bind: unknown[] = [row.entity_id, row.id];
    if (kind) bind.push(kind);
    const db = this.models.Activity.sequelize!;
    const rowsOf: RowsOf = (text, bind) => db.query(text, { bind, type: QueryTypes.SELECT });
    const where = `entity_id = $1 AND workspace_id = $2${kind ? ' AND kind = $3' : ''}`;
    const { rows, total } = await keysetPage<ActivityAttributes>(rowsOf, { columns: '*', from: 'workspace_activity', where, bind, keyset: ACTIVITY_KEYSET, page });
    const { items, ...rest } = cursorPage(ACTIVITY_KEYSET, rows, page);
    return { items: items.map(activityView), total, ...rest };
  },
};

/**
 * Internal (`recordActivity` in kernel/activity.ts is its only intended caller): appends one
 * entry to the log of a workspace of `entity_id`; 404 when the entity has no such workspace.
 */
export const recordActivity: WorkspacesAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    entity_id: { type: 'string', min: 1, max: 64 },
    ...WORKSPACE_ID_PARAM,
    kind: KIND_RULE,
    summary: { type: 'string', min: 1, max: 500 },
    data: { type: 'object', optional: true },
    actor: { type: 'object', strict: true, props: { type: { type: 'enum', values: ['user', 'agent', 'system'] }, id: { type: 'string', min: 1, max: 128 } } },
  },
  async handler(ctx: Context<RecordActivityParams>) {
    const { entity_id, workspace_id, kind, summary, data = {}, actor } = ctx.params;
    if (Buffer.byteLength(JSON.stringify(data)) > MAX_DATA_BYTES) {
      throw ERRORS.VALIDATION_FAILED('The activity data is too large.', [{ field: 'data', message: `At most ${MAX_DATA_BYTES} bytes of JSON.`, type: 'objectMaxSize' }]);
    }
    const workspace = await loadWorkspace(this, entity_id, workspace_id);
    try {
      const row = await tenantRepo(this.models.Activity, 'activity entry').create(entity_id, {
        id: newId(),
        workspace_id: workspace.id,
        actor_type: actor.type,
        actor_id: actor.id,
        kind,
        summary,
        data,
      });
      return activityView(row);
    } catch (err) {
      // the workspace was deleted for good between the check and the insert
      if (err instanceof ForeignKeyConstraintError) throw ERRORS.NOT_FOUND(`No workspace with id '${workspace_id}'.`, { resource: 'workspace', id: workspace_id });
      throw err;
    }
  },
};
