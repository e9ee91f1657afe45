import type { ActionSchema, Context, Service } from 'moleculer';
import type { Transaction } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { tenantRepo } from '../../kernel/tenancy/repo.ts';
import { assertWorkspaceOpen } from '../../kernel/workspace-state.ts';
import type { ActionDocKeys } from '../../kernel/openapi/types.ts';
import type { WorkspaceModels, WorkspaceRow } from './model.ts';
import type { CollectionCache } from '../../kernel/cache/collection-cache.ts';

/** The service instance the actions run on: `created()` puts the models there. */
export interface WorkspacesService extends Service {
  models: WorkspaceModels;
  /** serialised list pages per entity; every committed write invalidates the entity's */
  listCache: CollectionCache;
}

export type WorkspacesAction = ActionSchema<WorkspacesService> & ActionDocKeys & { rest?: string };

/** The path parameter every per-workspace route takes. */
export const WORKSPACE_ID_PARAM = { workspace_id: { type: 'string', min: 1, max: 64 } } as const;

/**
 * The caller's workspace with that id, else 404 (also for an id of another entity, or one
 * that is not a UUID at all: the answer never says which). `lock` takes a row lock for the
 * transaction, so concurrent writes to one workspace happen one after the other.
 */
export async function loadWorkspace(svc: WorkspacesService, ctx: Context | string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<WorkspaceRow> {
  if (!isUuid(id)) throw ERRORS.NOT_FOUND(`No workspace with id '${id}'.`, { resource: 'workspace', id });
  return tenantRepo(svc.models.Workspace, 'workspace').get(ctx, id, opts);
}

/** 409 for a write to an archived workspace: it is read-only until deleted for good (the kernel's one check). */
export function assertNotArchived(row: WorkspaceRow): void {
  assertWorkspaceOpen(row);
}
