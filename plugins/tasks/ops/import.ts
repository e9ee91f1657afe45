import type { Context } from 'moleculer';
import { QueryTypes, type Sequelize } from 'sequelize';
import { CsvSyntaxError, parseCsv } from '../domain/csv.ts';
import { MAX_IMPORT_ROWS, readHeader, readRow, type ImportedTask, type ImportProblem } from '../domain/import-rows.ts';
import { invalid } from '../errors.ts';
import { workspaceProblem } from '../refs.ts';
import { insertTask, type Actor, type ExecutionEntryInput } from '../db/task-store.ts';
import type { TaskRow } from '../db/task-row.ts';
import { draftTask } from './create.ts';

/** At most this many problems are listed; the detail says how many more there were. */
const MAX_LISTED_PROBLEMS = 200;

function refuse(problems: ImportProblem[]): Error {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const rows = [...new Set(problems.map((p) => /^rows\[(\d+)\]/.exec(p.field)?.[1]).filter(Boolean))];
  const more = problems.length > listed.length ? ` (${problems.length - listed.length} more not listed)` : '';
  const where = rows.length ? `row(s) ${rows.join(', ')}` : 'the file';
  return invalid(listed, `Nothing was imported: ${problems.length} problem(s) in ${where}${more}.`);
}

/** Category cells name a category by id or by name (case-insensitive). */
async function resolveCategories(db: Sequelize, entityId: string, tasks: ImportedTask[], problems: ImportProblem[]): Promise<Map<string, string>> {
  const wanted = [...new Set(tasks.map((t) => t.category).filter((c): c is string => !!c))];
  const found = new Map<string, string>();
  if (!wanted.length) return found;
  const rows = await db.query<{ id: string; name: string }>('SELECT id, name FROM task_categories WHERE entity_id = $1 AND (lower(name) = ANY($2::text[]) OR id::text = ANY($2::text[]))', {
    bind: [entityId, wanted.map((w) => w.toLowerCase())],
    type: QueryTypes.SELECT,
  });
  for (const row of rows) {
    found.set(row.id, row.id);
    found.set(row.name.toLowerCase(), row.id);
  }
  for (const t of tasks) {
    if (t.category && !found.has(t.category.toLowerCase())) problems.push({ field: `rows[${t.line}].category`, message: `Row ${t.line}: no category '${t.category}'.`, type: 'reference' });
  }
  return found;
}

async function checkWorkspaces(ctx: Context, tasks: ImportedTask[], problems: ImportProblem[]): Promise<void> {
  const ids = [...new Set(tasks.map((t) => t.workspace_id).filter((w): w is string => !!w))];
  const bad = new Map<string, string>();
  for (const id of ids) {
    const problem = await workspaceProblem(ctx, id);
    if (problem) bad.set(id, problem.message);
  }
  for (const t of tasks) {
    if (t.workspace_id && bad.has(t.workspace_id)) problems.push({ field: `rows[${t.line}].workspace_id`, message: `Row ${t.line}: ${bad.get(t.workspace_id)}`, type: 'reference' });
  }
}

/** Imports every row of the CSV in one transaction, or none: any problem is a 422 listing each. */
export async function importCsv(ctx: Context, db: Sequelize, entityId: string, text: string, actor: Actor): Promise<{ rows: TaskRow[]; execution: ExecutionEntryInput[][] }> {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw refuse([{ field: `rows[${err.line}]`, message: `Row ${err.line}: ${err.message.replace(/^line \d+: /, '')}.`, type: 'csv' }]);
    throw err;
  }
  if (records.length < 2) throw refuse([{ field: 'file', message: 'The file needs a header line and at least one row.', type: 'empty' }]);
  if (records.length - 1 > MAX_IMPORT_ROWS) throw refuse([{ field: 'file', message: `At most ${MAX_IMPORT_ROWS} rows can be imported at once; the file has ${records.length - 1}.`, type: 'size' }]);
  const header = readHeader(records[0].fields);
  if (header.problems.length) throw refuse(header.problems);

  const problems: ImportProblem[] = [];
  const tasks: ImportedTask[] = [];
  for (const record of records.slice(1)) {
    const row = readRow(record, header.columns);
    problems.push(...row.problems);
    if (row.task) tasks.push(row.task);
  }
  const categories = await resolveCategories(db, entityId, tasks, problems);
  await checkWorkspaces(ctx, tasks, problems);
  if (problems.length) throw refuse(problems.sort((a, b) => lineOf(a) - lineOf(b)));

  const now = new Date();
  const createdBy = actor.type === 'user' ? actor.id : null;
  return db.transaction(async (transaction) => {
    const rows: TaskRow[] = [];
    const execution: ExecutionEntryInput[][] = [];
    for (const t of tasks) {
      const draft = draftTask({ ...t, category_id: t.category ? categories.get(t.category.toLowerCase()) : undefined }, createdBy, undefined, now);
      rows.push(await insertTask(db, entityId, draft.task, { actor, execution: draft.execution }, now, { transaction }));
      execution.push(draft.execution);
    }
    return { rows, execution };
  });
}

function lineOf(p: ImportProblem): number {
  return Number(/^rows\[(\d+)\]/.exec(p.field)?.[1] ?? 0);
}
