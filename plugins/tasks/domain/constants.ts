import { BOARD_COLUMNS } from './board-columns.ts';
import {
  DEFAULT_INITIAL_STATUS,
  INITIAL_STATUSES,
  RESOLVED_STATUSES,
  RESUME_ON_COMMENT,
  RETRY_MOVE,
  TASK_STATUSES,
  allowedTargets,
  transitionList,
  type TaskStatus,
  type TransitionEntry,
} from './state-machine.ts';

export const PRIORITIES = [1, 2, 3, 4, 5] as const;
export const MIN_PRIORITY = 1;
export const MAX_PRIORITY = 5;
export const DEFAULT_PRIORITY = 3;
/** 1 is the most urgent. */
export const PRIORITY_LABELS: Record<number, string> = { 1: 'critical', 2: 'high', 3: 'normal', 4: 'low', 5: 'lowest' };

export const ASSIGNEE_TYPES = ['user', 'agent'] as const;
export type AssigneeType = (typeof ASSIGNEE_TYPES)[number];

export interface TaskConstants {
  statuses: TaskStatus[];
  initial_statuses: TaskStatus[];
  default_status: TaskStatus;
  transitions: TransitionEntry[];
  allowed_targets: Record<TaskStatus, TaskStatus[]>;
  resume_on_comment: Partial<Record<TaskStatus, TaskStatus>>;
  retry: { from: TaskStatus; to: TaskStatus };
  resolved_statuses: TaskStatus[];
  board_columns: { key: string; title: string; statuses: TaskStatus[] }[];
  priorities: { value: number; label: string }[];
  default_priority: number;
  assignee_types: string[];
}

/** Everything a client needs to draw and drive tasks without hard-coding the machine. */
export function taskConstants(): TaskConstants {
  return {
    statuses: [...TASK_STATUSES],
    initial_statuses: [...INITIAL_STATUSES],
    default_status: DEFAULT_INITIAL_STATUS,
    transitions: transitionList(),
    allowed_targets: Object.fromEntries(TASK_STATUSES.map((s) => [s, allowedTargets(s)])) as Record<TaskStatus, TaskStatus[]>,
    resume_on_comment: { ...RESUME_ON_COMMENT },
    retry: { ...RETRY_MOVE },
    resolved_statuses: [...RESOLVED_STATUSES],
    board_columns: BOARD_COLUMNS.map((c) => ({ key: c.key, title: c.title, statuses: [...c.statuses] })),
    priorities: PRIORITIES.map((value) => ({ value, label: PRIORITY_LABELS[value] })),
    default_priority: DEFAULT_PRIORITY,
    assignee_types: [...ASSIGNEE_TYPES],
  };
}
