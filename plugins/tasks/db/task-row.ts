import { allowedTargets, type TaskStatus } from '../domain/state-machine.ts';
import { slaState, type SlaState } from '../domain/sla.ts';
import type { AssigneeType } from '../domain/constants.ts';

/** A row of `tasks` as PostgreSQL returns it. */
export interface TaskRow {
  id: string;
  entity_id: string;
  workspace_id: string | null;
  parent_id: string | null;
  title: string;
  description: string;
  status: TaskStatus;
  board_column: string;
  priority: number;
  assignee_type: AssigneeType | null;
  assignee_id: string | null;
  deadline: Date | null;
  category_id: string | null;
  requester: string | null;
  output_files: OutputFile[];
  sla_policy_id: string | null;
  sla_response_due_at: Date | null;
  sla_resolution_due_at: Date | null;
  responded_at: Date | null;
  resolved_at: Date | null;
  pending_request: PendingRequest | null;
  delivery_review: DeliveryReview | null;
  evaluation: Record<string, unknown> | null;
  version: number;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OutputFile {
  name: string;
  object_key?: string;
  url?: string;
  size?: number;
  content_type?: string;
  created_at?: string;
}

/** A question or approval the agent runtime raised and a person must answer. */
export interface PendingRequest {
  id: string;
  kind: 'hitl' | 'approval';
  prompt: string;
  options?: string[];
  raised_at: string;
  run_id?: string;
}

/** A run paused in delivery review, as the runtime reported it. */
export interface DeliveryReview {
  state: 'paused' | 'resumed';
  plan_id: string;
  state_version: number;
  run_id?: string;
  paused_at: string;
  resumed_at?: string;
}

export type Assignee = { type: AssigneeType; id: string } | null;

/** Columns the API shows exactly as stored. */
type ShownAsStored =
  | 'id' | 'entity_id' | 'workspace_id' | 'parent_id' | 'title' | 'description' | 'status' | 'board_column' | 'priority'
  | 'category_id' | 'requester' | 'output_files' | 'sla_policy_id' | 'pending_request' | 'delivery_review' | 'evaluation'
  | 'version' | 'created_by';

/** A task as the API shows it: the stored columns, with the assignee, SLA clock and dates derived. */
export type TaskView = Pick<TaskRow, ShownAsStored> & {
  /** null: the master agent handles it */
  assignee: Assignee;
  deadline: string | null;
  sla: SlaState | null;
  allowed_transitions: TaskStatus[];
  created_at: string;
  updated_at: string;
};

export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function date(value: Date | string | null): Date | null {
  if (value === null) return null;
  return value instanceof Date ? value : new Date(value);
}

type ClockColumns = Pick<TaskRow, 'sla_policy_id' | 'sla_response_due_at' | 'sla_resolution_due_at' | 'responded_at' | 'resolved_at'>;

function slaOf(row: ClockColumns, now: Date): SlaState | null {
  if (!row.sla_policy_id) return null;
  return slaState(
    { response_due_at: date(row.sla_response_due_at), resolution_due_at: date(row.sla_resolution_due_at), responded_at: date(row.responded_at), resolved_at: date(row.resolved_at) },
    now,
  );
}

function assigneeOf(row: Pick<TaskRow, 'assignee_type' | 'assignee_id'>): Assignee {
  return row.assignee_type && row.assignee_id ? { type: row.assignee_type, id: row.assignee_id } : null;
}

export function taskView(row: TaskRow, now: Date = new Date()): TaskView {
  return {
    id: row.id,
    entity_id: row.entity_id,
    workspace_id: row.workspace_id,
    parent_id: row.parent_id,
    title: row.title,
    description: row.description,
    status: row.status,
    board_column: row.board_column,
    priority: Number(row.priority),
    assignee: assigneeOf(row),
    deadline: iso(row.deadline),
    category_id: row.category_id,
    requester: row.requester,
    output_files: row.output_files ?? [],
    sla_policy_id: row.sla_policy_id,
    sla: slaOf(row, now),
    pending_request: row.pending_request,
    delivery_review: row.delivery_review,
    evaluation: row.evaluation,
    allowed_transitions: allowedTargets(row.status),
    version: Number(row.version),
    created_by: row.created_by,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** A board card: the task as a column shows it. */
export type TaskCard = Omit<TaskView, 'description' | 'output_files' | 'pending_request' | 'delivery_review' | 'evaluation' | 'created_by'> & { awaiting_input: boolean };

export type CardRow = Omit<TaskRow, 'description' | 'output_files' | 'pending_request' | 'delivery_review' | 'evaluation' | 'created_by'> & { awaiting_input: boolean };

export function taskCard(row: CardRow, now: Date = new Date()): TaskCard {
  return {
    id: row.id,
    entity_id: row.entity_id,
    workspace_id: row.workspace_id,
    parent_id: row.parent_id,
    title: row.title,
    status: row.status,
    board_column: row.board_column,
    priority: Number(row.priority),
    assignee: assigneeOf(row),
    deadline: iso(row.deadline),
    category_id: row.category_id,
    requester: row.requester,
    sla_policy_id: row.sla_policy_id,
    sla: slaOf(row, now),
    allowed_transitions: allowedTargets(row.status),
    version: Number(row.version),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    awaiting_input: row.awaiting_input,
  };
}
