import { QueryTypes, type Sequelize } from 'sequelize';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';
import { applyOperation, type JsonObject, type ProjectOperation } from './document-ops.ts';

/** Largest document a project may hold, as JSON text (a change past it fails and stores nothing). */
export const MAX_DOCUMENT_BYTES = 256 * 1024;

export interface ProjectKey {
  entity_id: string;
  /** `binding:<id>` or `workflow:<id>` */
  scope: string;
}

export interface ProjectState {
  document: JsonObject;
  value: unknown;
  version: number;
}

/**
 * Reads or changes a project's document. A change is one transaction that locks the row (it is
 * created first if missing) and writes the result, so concurrent runs serialise on it and no
 * update is lost; a failed change (bad path, too large) rolls back and stores nothing.
 */
export async function runOperation(db: Sequelize, key: ProjectKey, op: ProjectOperation, runId: string): Promise<ProjectState> {
  if (op.operation === 'get') {
    const rows = await db.query<{ document: JsonObject; version: number }>('SELECT document, version FROM node_workflow_project WHERE entity_id = $1 AND scope = $2', {
      bind: [key.entity_id, key.scope],
      type: QueryTypes.SELECT,
    });
    const document = rows[0]?.document ?? {};
    return { ...applyOperation(document, op), version: rows[0]?.version ?? 0 };
  }
  return db.transaction(async (transaction) => {
    await db.query('INSERT INTO node_workflow_project (entity_id, scope) VALUES ($1, $2) ON CONFLICT (entity_id, scope) DO NOTHING', { bind: [key.entity_id, key.scope], transaction, type: QueryTypes.INSERT });
    const [row] = await db.query<{ document: JsonObject; version: number }>('SELECT document, version FROM node_workflow_project WHERE entity_id = $1 AND scope = $2 FOR UPDATE', {
      bind: [key.entity_id, key.scope],
      transaction,
      type: QueryTypes.SELECT,
    });
    const { document, value } = applyOperation(row.document, op);
    const text = JSON.stringify(document);
    if (Buffer.byteLength(text) > MAX_DOCUMENT_BYTES) throw new NodeStepError(`The document would be ${Buffer.byteLength(text)} bytes; a project holds at most ${MAX_DOCUMENT_BYTES}.`, 'DOCUMENT_TOO_LARGE');
    const version = row.version + 1;
    await db.query('UPDATE node_workflow_project SET document = $3::jsonb, version = $4, updated_by_run = $5, updated_at = now() WHERE entity_id = $1 AND scope = $2', {
      bind: [key.entity_id, key.scope, text, version, runId || null],
      transaction,
      type: QueryTypes.UPDATE,
    });
    return { document, value, version };
  });
}
