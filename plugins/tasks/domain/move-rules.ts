import { checkMove, TASK_STATUSES, type TaskStatus } from './state-machine.ts';
import { clockChangesOnMove } from './sla.ts';

/**
 * What a move to `to` does from each status, decided here by the state machine and the SLA
 * clocks (no I/O), so that one SQL statement can apply the decision to whatever status the
 * locked row turns out to have: the SQL holds no rules of its own, only these lists.
 */
export interface MoveRules {
  /** statuses the move is legal from */
  legalFrom: TaskStatus[];
  /** from these, the move is the first response (when none was recorded yet) */
  respondsFrom: TaskStatus[];
  /** from these, the move resolves the task */
  resolvesFrom: TaskStatus[];
  /** from these, the move reopens a resolved task */
  reopensFrom: TaskStatus[];
}

const PROBE = new Date(0);

export function moveRules(to: TaskStatus, onlyFrom?: TaskStatus): MoveRules {
  const legalFrom = TASK_STATUSES.filter((from) => checkMove(from, to).ok && (!onlyFrom || from === onlyFrom));
  const clocks = (from: TaskStatus) => clockChangesOnMove(from, to, { responded_at: null, resolved_at: null }, PROBE);
  const reopenClocks = (from: TaskStatus) => clockChangesOnMove(from, to, { responded_at: PROBE, resolved_at: PROBE }, PROBE);
  return {
    legalFrom,
    respondsFrom: legalFrom.filter((from) => clocks(from).responded_at !== undefined),
    resolvesFrom: legalFrom.filter((from) => clocks(from).resolved_at instanceof Date),
    reopensFrom: legalFrom.filter((from) => reopenClocks(from).resolved_at === null),
  };
}
