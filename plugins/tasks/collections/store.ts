import { ForeignKeyConstraintError, QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { notFound, TASKS_ERR_IN_USE } from '../errors.ts';
import { BindList } from '../db/sql-builder.ts';

/**
 * Rows of one entity-owned collection table (categories, SLA policies, templates): every
 * statement is scoped to the entity, a row of another entity is a 404, and a second row with
 * the same name (case-insensitive) is a 409 naming `name`.
 */
export interface CollectionTable {
  table: string;
  /** what a 404 calls a row */
  label: string;
  /** columns a create or update may set */
  columns: readonly string[];
  jsonColumns?: readonly string[];
}

export type Row = Record<string, unknown> & { id: string; name: string; created_at: Date; updated_at: Date };

function value(binds: BindList, spec: CollectionTable, column: string, v: unknown): string {
  return spec.jsonColumns?.includes(column) ? `${binds.add(JSON.stringify(v))}::jsonb` : binds.add(v);
}

function duplicateName(spec: CollectionTable, name: unknown): Error {
  return ERRORS.CONFLICT(`A ${spec.label} named '${String(name)}' already exists.`, { field: 'name', resource: spec.label });
}

async function write<T>(spec: CollectionTable, name: unknown, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw duplicateName(spec, name);
    throw err;
  }
}

export async function pageRows(db: Sequelize, spec: CollectionTable, entityId: string, page: { limit: number; offset: number }): Promise<{ rows: Row[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    db.query<Row>(`SELECT * FROM ${spec.table} WHERE entity_id = $1 ORDER BY lower(name), id LIMIT $2 OFFSET $3`, { bind: [entityId, page.limit, page.offset], type: QueryTypes.SELECT }),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${spec.table} WHERE entity_id = $1`, { bind: [entityId], type: QueryTypes.SELECT }),
  ]);
  return { rows, total: count.n };
}

export async function getRow(db: Sequelize, spec: CollectionTable, entityId: string, id: string, transaction?: Transaction): Promise<Row> {
  const rows = isUuid(id)
    ? await db.query<Row>(`SELECT * FROM ${spec.table} WHERE id = $1 AND entity_id = $2`, { bind: [id, entityId], type: QueryTypes.SELECT, transaction })
    : [];
  if (!rows[0]) throw notFound(spec.label, id);
  return rows[0];
}

export async function insertRow(db: Sequelize, spec: CollectionTable, entityId: string, values: Record<string, unknown>): Promise<Row> {
  const binds = new BindList();
  const now = binds.add(new Date());
  const columns = ['id', 'entity_id', 'created_at', 'updated_at'];
  const placeholders = [binds.add(newId()), binds.add(entityId), now, now];
  for (const column of spec.columns) {
    if (values[column] === undefined) continue;
    columns.push(column);
    placeholders.push(value(binds, spec, column, values[column]));
  }
  return write(spec, values.name, async () => {
    const [row] = await db.query<Row>(`INSERT INTO ${spec.table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')}) RETURNING *`, { bind: binds.values, type: QueryTypes.SELECT });
    return row;
  });
}

export async function updateRow(db: Sequelize, spec: CollectionTable, entityId: string, id: string, values: Record<string, unknown>, transaction?: Transaction): Promise<Row> {
  const current = await getRow(db, spec, entityId, id, transaction);
  const binds = new BindList();
  const sets = [`updated_at = ${binds.add(new Date())}`];
  for (const column of spec.columns) if (values[column] !== undefined) sets.push(`${column} = ${value(binds, spec, column, values[column])}`);
  return write(spec, values.name, async () => {
    const [row] = await db.query<Row>(`UPDATE ${spec.table} SET ${sets.join(', ')} WHERE id = ${binds.add(current.id)} AND entity_id = ${binds.add(entityId)} RETURNING *`, {
      bind: binds.values,
      type: QueryTypes.SELECT,
      transaction,
    });
    if (!row) throw notFound(spec.label, id);
    return row;
  });
}

/** Deletes the row; `inUse` counts what still refers to it (a 409 when not zero). */
export async function deleteRow(db: Sequelize, spec: CollectionTable, entityId: string, id: string, inUse?: { sql: string; what: string }): Promise<void> {
  const current = await getRow(db, spec, entityId, id);
  const refused = (n: number) => TASKS_ERR_IN_USE(`The ${spec.label} is used by ${n} ${inUse?.what}; change those first.`, { resource: spec.label, id: current.id, used_by: n });
  try {
    await db.transaction(async (transaction) => {
      if (inUse) {
        const [uses] = await db.query<{ n: number }>(inUse.sql, { bind: [current.id, entityId], type: QueryTypes.SELECT, transaction });
        if (uses.n > 0) throw refused(uses.n);
      }
      await db.query(`DELETE FROM ${spec.table} WHERE id = $1 AND entity_id = $2`, { bind: [current.id, entityId], transaction });
    });
  } catch (err) {
    if (err instanceof ForeignKeyConstraintError) throw refused(1); // a task took it up meanwhile
    throw err;
  }
}
