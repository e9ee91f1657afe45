import type { Context } from 'moleculer';
import { recordActivity, type ActivityEntry } from '../../kernel/activity.ts';
import type { WorkspacesService } from './lookup.ts';

/**
 * Records an entry about a write this package has already committed. The write stands either
 * way, so a failure to record is logged rather than turned into an error for the caller.
 */
export async function recordOwnActivity(svc: WorkspacesService, ctx: Context, entry: ActivityEntry): Promise<void> {
  try {
    await recordActivity(ctx, entry);
  } catch (err) {
    svc.logger.error({ err, workspace_id: entry.workspace_id, kind: entry.kind }, 'the activity entry of a committed workspace write was not recorded');
  }
}
