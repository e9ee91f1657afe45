import { RESOLVED_STATUSES, UNANSWERED_STATUSES, type TaskStatus } from './state-machine.ts';

/**
 * SLA arithmetic, no I/O. A policy sets, per priority, how many minutes a task may wait for
 * its first response and for its resolution, counted from the task's creation. The response
 * clock stops when the task first leaves the unanswered statuses (created, proposed, pending);
 * the resolution clock stops when it is completed or cancelled (and runs again if reopened).
 */

export interface SlaTarget {
  response_minutes?: number;
  resolution_minutes?: number;
}

/** Keyed by priority "1".."5"; a priority without a target has no due date for that clock. */
export type SlaTargets = Partial<Record<'1' | '2' | '3' | '4' | '5', SlaTarget>>;

export interface SlaDueDates {
  response_due_at: Date | null;
  resolution_due_at: Date | null;
}

export interface SlaClocks extends SlaDueDates {
  responded_at: Date | null;
  resolved_at: Date | null;
}

export interface SlaState {
  response_due_at: string | null;
  resolution_due_at: string | null;
  /** the earliest due date of a clock still running, null when both stopped */
  due_at: string | null;
  breached: boolean;
  /** when the first missed due date passed */
  breached_at: string | null;
}

const MINUTE_MS = 60_000;

export function dueDates(targets: SlaTargets, priority: number, start: Date): SlaDueDates {
  const target = targets[String(priority) as keyof SlaTargets] ?? {};
  const plus = (minutes: number | undefined) => (minutes === undefined ? null : new Date(start.getTime() + minutes * MINUTE_MS));
  return { response_due_at: plus(target.response_minutes), resolution_due_at: plus(target.resolution_minutes) };
}

/** A clock is breached when it stopped after its due date, or is still running past it. */
export function slaState(clocks: SlaClocks, now: Date): SlaState {
  const missed: Date[] = [];
  const running: Date[] = [];
  for (const [due, stopped] of [
    [clocks.response_due_at, clocks.responded_at],
    [clocks.resolution_due_at, clocks.resolved_at],
  ] as const) {
    if (!due) continue;
    if ((stopped ?? now).getTime() > due.getTime()) missed.push(due);
    if (!stopped) running.push(due);
  }
  const earliest = (dates: Date[]) => (dates.length ? new Date(Math.min(...dates.map((d) => d.getTime()))).toISOString() : null);
  return {
    response_due_at: clocks.response_due_at?.toISOString() ?? null,
    resolution_due_at: clocks.resolution_due_at?.toISOString() ?? null,
    due_at: earliest(running),
    breached: missed.length > 0,
    breached_at: earliest(missed),
  };
}

/** How a status move changes the clocks: which of responded_at / resolved_at to set. */
export function clockChangesOnMove(from: TaskStatus, to: TaskStatus, clocks: Pick<SlaClocks, 'responded_at' | 'resolved_at'>, now: Date): Partial<Pick<SlaClocks, 'responded_at' | 'resolved_at'>> {
  const changes: Partial<Pick<SlaClocks, 'responded_at' | 'resolved_at'>> = {};
  if (!clocks.responded_at && UNANSWERED_STATUSES.includes(from) && !UNANSWERED_STATUSES.includes(to)) changes.responded_at = now;
  const wasResolved = RESOLVED_STATUSES.includes(from);
  const isResolved = RESOLVED_STATUSES.includes(to);
  if (isResolved && !wasResolved) changes.resolved_at = now;
  if (!isResolved && wasResolved) changes.resolved_at = null;
  return changes;
}
