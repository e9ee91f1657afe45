import { isDateText } from './dates.ts';
import { INITIAL_STATUSES, type TaskStatus } from './state-machine.ts';
import { MAX_PRIORITY, MIN_PRIORITY } from './constants.ts';
import type { CsvRecord } from './csv.ts';

/**
 * CSV rows to task inputs (no I/O). The header names the columns (any order, any case);
 * `title` is required. A problem is reported per row and column, with the row's line number,
 * so one bad row among good ones is named precisely.
 */

export const IMPORT_COLUMNS = ['title', 'description', 'status', 'priority', 'deadline', 'category', 'workspace_id', 'assignee', 'requester'] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];
export const MAX_IMPORT_ROWS = 5000;

export interface ImportProblem {
  field: string;
  message: string;
  type: string;
}

export interface ImportedTask {
  line: number;
  title: string;
  description?: string;
  status?: TaskStatus;
  priority?: number;
  deadline?: string;
  /** the category name or id as written; resolved by the caller */
  category?: string;
  workspace_id?: string;
  assignee?: { type: 'user' | 'agent'; id: string };
  requester?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Which column holds what; problems for unknown, repeated or missing columns. */
export function readHeader(header: string[]): { columns: (ImportColumn | null)[]; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const columns = header.map((raw) => {
    const name = raw.trim().toLowerCase();
    if ((IMPORT_COLUMNS as readonly string[]).includes(name)) return name as ImportColumn;
    problems.push({ field: 'header', message: `Unknown column '${raw}'; the columns are ${IMPORT_COLUMNS.join(', ')}.`, type: 'column' });
    return null;
  });
  for (const name of new Set(columns)) if (name && columns.filter((c) => c === name).length > 1) problems.push({ field: 'header', message: `Column '${name}' appears more than once.`, type: 'column' });
  if (!columns.includes('title')) problems.push({ field: 'header', message: "The header needs a 'title' column.", type: 'column' });
  return { columns, problems };
}

export function readRow(record: CsvRecord, columns: (ImportColumn | null)[]): { task?: ImportedTask; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const at = (column: string, message: string, type = 'invalid') => problems.push({ field: `rows[${record.line}].${column}`, message: `Row ${record.line}: ${message}`, type });
  if (record.fields.length !== columns.length) {
    at('fields', `has ${record.fields.length} field(s) where the header has ${columns.length}.`, 'shape');
    return { problems };
  }
  const cell = (column: ImportColumn) => {
    const index = columns.indexOf(column);
    const value = index < 0 ? '' : record.fields[index].trim();
    return value === '' ? undefined : value;
  };
  const task: ImportedTask = { line: record.line, title: cell('title') ?? '' };
  if (!task.title) at('title', 'the title is empty.', 'required');
  else if (task.title.length > 500) at('title', 'the title is longer than 500 characters.', 'length');
  const description = cell('description');
  if (description && description.length > 100_000) at('description', 'the description is longer than 100000 characters.', 'length');
  task.description = description;
  const status = cell('status');
  if (status !== undefined) {
    if ((INITIAL_STATUSES as readonly string[]).includes(status)) task.status = status as TaskStatus;
    else at('status', `'${status}' is not a status a task can start in (${INITIAL_STATUSES.join(', ')}).`, 'status');
  }
  const priority = cell('priority');
  if (priority !== undefined) {
    const n = Number(priority);
    if (Number.isInteger(n) && n >= MIN_PRIORITY && n <= MAX_PRIORITY) task.priority = n;
    else at('priority', `priority '${priority}' is not an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}.`, 'priority');
  }
  const deadline = cell('deadline');
  if (deadline !== undefined) {
    if (isDateText(deadline)) task.deadline = deadline;
    else at('deadline', `'${deadline}' is not a date (ISO 8601, e.g. 2030-01-31 or 2030-01-31T17:00:00Z).`, 'date');
  }
  task.category = cell('category');
  const workspace = cell('workspace_id');
  if (workspace !== undefined) {
    if (UUID.test(workspace)) task.workspace_id = workspace.toLowerCase();
    else at('workspace_id', `'${workspace}' is not a workspace id.`, 'uuid');
  }
  const assignee = cell('assignee');
  if (assignee !== undefined) {
    const match = /^(user|agent):(.{1,128})$/.exec(assignee);
    if (match) task.assignee = { type: match[1] as 'user' | 'agent', id: match[2].trim() };
    else at('assignee', `'${assignee}' is not an assignee; write user:<id> or agent:<id>, or leave it empty for the master agent.`, 'assignee');
  }
  const requester = cell('requester');
  if (requester && requester.length > 255) at('requester', 'the requester is longer than 255 characters.', 'length');
  task.requester = requester;
  return problems.length ? { problems } : { task, problems };
}
