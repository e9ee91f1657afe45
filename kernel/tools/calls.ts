import type { Identity } from '../gateway/authenticate.ts';
import type { ToolInvocation } from './define.ts';
import { TOOLS_ERR, toolError } from './errors.ts';

type ErrorLike = { message?: string; code?: unknown; type?: unknown; data?: unknown };

/** A callee's client error, phrased for the model (a 422 names its fields). */
function modelMessage(err: ErrorLike): string {
  const base = err.message || 'The request was refused.';
  if (!Array.isArray(err.data)) return base;
  const fields = (err.data as { field?: unknown; message?: unknown }[])
    .map((d) => (typeof d.message === 'string' ? d.message : typeof d.field === 'string' ? `${d.field} is invalid` : ''))
    .filter(Boolean);
  return fields.length ? `${base}: ${fields.join('; ')}` : base;
}

/**
 * Calls another package's action as the run's user (ctx.meta.user). What the callee refuses
 * with a client error (404 of another entity's record, 409 of an illegal move, 422 of a bad
 * field, ...) comes back as TOOLS_ERR_FAILED carrying the callee's message and code, so the model
 * can read it and correct itself; 401 and server errors pass through as they are. The callee's
 * response meta (`$statusCode`, ...) is not let into the caller's meta, which may belong to an
 * HTTP request.
 */
export async function callAction<T>(inv: ToolInvocation, action: string, params: Record<string, unknown>): Promise<T> {
  const meta = inv.ctx.meta as Record<string, unknown>;
  const saved = Object.fromEntries(Object.entries(meta).filter(([k]) => k.startsWith('$')));
  try {
    return (await inv.ctx.call(action, params)) as T;
  } catch (err) {
    const e = (err ?? {}) as ErrorLike;
    const status = typeof e.code === 'number' ? e.code : 0;
    if (status >= 400 && status < 500 && status !== 401 && !TOOLS_ERR.FAILED.is(err)) {
      throw toolError(modelMessage(e), { tool: inv.tool.name, cause: { code: typeof e.type === 'string' ? e.type : 'ERROR', status } });
    }
    throw err;
  } finally {
    for (const key of Object.keys(meta)) if (key.startsWith('$') && !(key in saved)) delete meta[key];
    Object.assign(meta, saved);
  }
}

/** The run's user (ctx.meta.user); a tool reaching tenant data cannot run without one. */
export function requireUser(inv: ToolInvocation): Identity {
  const user = (inv.ctx.meta as { user?: Identity | null }).user;
  if (!user?.entity_id) throw TOOLS_ERR.CONTEXT(`The tool '${inv.tool.name}' needs the run's user as ctx.meta.user.`, { tool: inv.tool.name });
  return user;
}

export interface ContextWorkspace {
  id: string;
  name: string;
  archived: boolean;
}

/** The context's workspace, checked to exist in the caller's entity; a tool error when the call has none. */
export async function requireWorkspace(inv: ToolInvocation): Promise<ContextWorkspace> {
  requireUser(inv);
  const id = inv.context.workspace_id;
  if (!id) throw toolError(`The tool '${inv.tool.name}' works inside a workspace, and this call has none.`, { tool: inv.tool.name });
  const ws = await callAction<{ id: string; name: string; archived_at: string | null }>(inv, 'workspaces.resolve', { workspace_id: id });
  return { id: ws.id, name: ws.name, archived: ws.archived_at !== null };
}
