import type { ScheduleBinding } from '../../kernel/jobs-contract.ts';
import { cronProblems } from '../../kernel/schedule/cron.ts';
import { isKnownZone, nextFire } from '../../kernel/schedule/schedule.ts';
import { newId } from '../../kernel/tenancy/ids.ts';
import type { JobsService } from './service.ts';
import { announceChange } from './service.ts';

/**
 * Workflow bindings with trigger `schedule` fire from this one scheduler: each is mirrored as a
 * job (source `binding`, executor `workflow`) with the binding's cron and zone, so it gets the
 * same timers, exactly-once fires, catch-up, run log and overlap policy. A binding that changed
 * keeps its job (and run log); a new cron or zone, or enabling it, computes the next fire from
 * now. A binding that is gone or no longer a schedule loses its job. `bindingId`: that one
 * binding; none: all of them (at start, in case an event was missed).
 */
export async function syncBindings(svc: JobsService, bindingId?: string): Promise<number> {
  let bindings: ScheduleBinding[];
  try {
    bindings = await svc.broker.call<ScheduleBinding[], unknown>('workflows.scheduleBindings', bindingId ? { binding_id: bindingId } : {});
  } catch (err) {
    svc.logger.warn(`workflow schedule bindings could not be read: ${(err as Error).message}`);
    return 0;
  }
  const now = svc.now();
  const keep = bindings.filter((b) => b.cron && cronProblems(b.cron).length === 0 && isKnownZone(b.timezone));
  for (const b of keep) {
    const next = b.enabled ? nextFire({ kind: 'cron', cron: b.cron!, timezone: b.timezone }, now) : null;
    const row = await svc.sql.one<{ id: string; next_run_at: Date | null; enabled: boolean }>(
      `INSERT INTO jobs (id, entity_id, name, schedule_kind, cron, timezone, anchor_at, executor, config, workspace_id, enabled, next_run_at, source, binding_id, created_by)
       VALUES ($1, $2, $3, 'cron', $4, $5, $6, 'workflow', $7::jsonb, $8, $9, $10, 'binding', $11, $12)
       ON CONFLICT (binding_id) DO UPDATE SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone, enabled = EXCLUDED.enabled, workspace_id = EXCLUDED.workspace_id,
         next_run_at = CASE WHEN jobs.cron IS DISTINCT FROM EXCLUDED.cron OR jobs.timezone <> EXCLUDED.timezone OR jobs.enabled <> EXCLUDED.enabled THEN EXCLUDED.next_run_at ELSE jobs.next_run_at END,
         updated_at = CASE WHEN jobs.cron IS DISTINCT FROM EXCLUDED.cron OR jobs.timezone <> EXCLUDED.timezone OR jobs.enabled <> EXCLUDED.enabled THEN now() ELSE jobs.updated_at END
       RETURNING id, next_run_at, enabled`,
      [newId(), b.entity_id, `Workflow binding ${b.id}`, b.cron, b.timezone, now, JSON.stringify({ binding_id: b.id }), b.workspace_id, b.enabled, next, b.id, b.created_by],
    );
    if (row) announceChange(svc, row);
  }
  const kept = keep.map((b) => b.id);
  const gone = bindingId
    ? await svc.sql.rows<{ id: string }>(`DELETE FROM jobs WHERE source = 'binding' AND binding_id = $1 AND NOT (binding_id = ANY($2::uuid[])) RETURNING id`, [bindingId, kept])
    : await svc.sql.rows<{ id: string }>(`DELETE FROM jobs WHERE source = 'binding' AND NOT (binding_id = ANY($1::uuid[])) RETURNING id`, [kept]);
  for (const g of gone) announceChange(svc, { id: g.id, next_run_at: null, enabled: false });
  return keep.length;
}
