import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { PooledSql } from '../../kernel/db/pooled-sql.ts';
import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { newId } from '../../kernel/tenancy/ids.ts';

export interface ConversationRow {
  id: string;
  entity_id: string;
  user_id: string | null;
  workspace_id: string | null;
  agent_id: string | null;
  kind: 'direct' | 'workspace';
  title: string;
  pending: Pending | null;
  created_at: Date;
  updated_at: Date;
}

/** What a conversation's run waits for, while it is parked. */
export interface Pending {
  kind: 'approval' | 'question';
  run_id: string;
  step_id: string;
  tool?: string | null;
  reason?: string | null;
  text?: string | null;
  /** an approval: `tool` (a tool call of an agent) or `workflow` (an approval wait of the workflow, decided by the run's owner) */
  source?: 'tool' | 'workflow';
  /** the chat entrypoint's workflow whose run waits; null for an agent's run */
  workflow_id?: string | null;
}

export interface StoredFile {
  object_key: string;
  media_type: string;
  filename: string;
  size: number;
}

export type MessageStatus = 'complete' | 'streaming' | 'interrupted' | 'failed';

export interface MessageRow {
  id: string;
  entity_id: string;
  conversation_id: string;
  user_id: string | null;
  role: 'user' | 'assistant';
  content: string;
  files: StoredFile[];
  run_id: string | null;
  /** the chat entrypoint's workflow when a workflow run answers (null: an agent's run) */
  workflow_id: string | null;
  start_seq: number | null;
  status: MessageStatus;
  usage: { input_tokens: number; output_tokens: number } | null;
  pause: Pending | null;
  error: { code: string; message: string } | null;
  created_at: Date;
  updated_at: Date;
}

/** Who asks: conversations are the caller's own (direct) or their entity's shared workspace threads. */
export interface Caller {
  id: string;
  entity_id: string;
  role?: string;
}

const select = <T extends object>(db: Sequelize, sql: string, bind: unknown[], transaction?: Transaction) => db.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction });

const notFound = (id: string) => ERRORS.NOT_FOUND(`No conversation with id '${id}'.`, { resource: 'conversation', id });

/** The caller's conversation: their own direct one, or a workspace thread of their entity; else 404. */
export async function findConversation(db: Sequelize, who: Caller, id: string): Promise<ConversationRow> {
  if (!isUuid(id)) throw notFound(id);
  const [row] = await select<ConversationRow>(db, "SELECT * FROM chat_conversations WHERE id = $1 AND entity_id = $2 AND (kind = 'workspace' OR user_id = $3)", [id.toLowerCase(), who.entity_id, who.id]);
  if (!row) throw notFound(id);
  return row;
}

/** The workspace's shared thread, made on first use (racing first posts get the same one). */
export async function workspaceThread(db: Sequelize, who: Caller, workspaceId: string, create: boolean): Promise<ConversationRow | undefined> {
  const find = async () => (await select<ConversationRow>(db, "SELECT * FROM chat_conversations WHERE entity_id = $1 AND workspace_id = $2 AND kind = 'workspace'", [who.entity_id, workspaceId]))[0];
  const found = await find();
  if (found || !create) return found;
  const now = new Date();
  await db.query(
    `INSERT INTO chat_conversations (id, entity_id, user_id, workspace_id, agent_id, kind, title, created_at, updated_at)
     VALUES ($1, $2, $3, $4, NULL, 'workspace', 'Workspace thread', $5, $5) ON CONFLICT DO NOTHING`,
    { bind: [newId(), who.entity_id, who.id, workspaceId, now] },
  );
  return find();
}

export async function listConversations(db: Sequelize, who: Caller, limit: number, offset: number): Promise<{ items: ConversationRow[]; total: number }> {
  const items = await select<ConversationRow>(db, "SELECT * FROM chat_conversations WHERE entity_id = $1 AND user_id = $2 AND kind = 'direct' ORDER BY updated_at DESC, id DESC LIMIT $3 OFFSET $4", [who.entity_id, who.id, limit, offset]);
  const [{ n }] = await select<{ n: string }>(db, "SELECT count(*) AS n FROM chat_conversations WHERE entity_id = $1 AND user_id = $2 AND kind = 'direct'", [who.entity_id, who.id]);
  return { items, total: Number(n) };
}

export async function deleteConversation(db: Sequelize, conversation: ConversationRow): Promise<void> {
  await db.query('DELETE FROM chat_conversations WHERE id = $1 AND entity_id = $2', { bind: [conversation.id, conversation.entity_id] });
}

export async function setPending(db: Sequelize, conversationId: string, pending: Pending | null, transaction?: Transaction): Promise<void> {
  await db.query('UPDATE chat_conversations SET pending = $2, updated_at = now() WHERE id = $1', { bind: [conversationId, pending === null ? null : JSON.stringify(pending)], transaction });
}

/** Clears the pending request only if it is still the one decided (a concurrent decision loses). */
export async function takePending(db: Sequelize, conversationId: string, runId: string, stepId: string, transaction: Transaction): Promise<boolean> {
  const rows = await select<{ id: string }>(
    db,
    "UPDATE chat_conversations SET pending = NULL, updated_at = now() WHERE id = $1 AND pending->>'run_id' = $2 AND pending->>'step_id' = $3 RETURNING id",
    [conversationId, runId, stepId],
    transaction,
  );
  return rows.length === 1;
}

export async function insertMessage(
  db: Sequelize,
  fields: Pick<MessageRow, 'entity_id' | 'conversation_id' | 'user_id' | 'role' | 'content' | 'run_id' | 'start_seq' | 'status'> & { files?: StoredFile[]; id?: string; workflow_id?: string | null },
  transaction?: Transaction,
): Promise<MessageRow> {
  const now = new Date();
  const [row] = await select<MessageRow>(
    db,
    `INSERT INTO chat_messages (id, entity_id, conversation_id, user_id, role, content, files, run_id, start_seq, status, workflow_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING *`,
    [fields.id ?? newId(), fields.entity_id, fields.conversation_id, fields.user_id, fields.role, fields.content, JSON.stringify(fields.files ?? []), fields.run_id, fields.start_seq, fields.status, fields.workflow_id ?? null, now],
    transaction,
  );
  await db.query('UPDATE chat_conversations SET updated_at = $2 WHERE id = $1', { bind: [fields.conversation_id, now], transaction });
  return row;
}

export async function listMessages(db: Sequelize, conversationId: string, limit: number, offset: number): Promise<{ items: MessageRow[]; total: number }> {
  const items = await select<MessageRow>(db, 'SELECT * FROM chat_messages WHERE conversation_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3', [conversationId, limit, offset]);
  const [{ n }] = await select<{ n: string }>(db, 'SELECT count(*) AS n FROM chat_messages WHERE conversation_id = $1', [conversationId]);
  return { items, total: Number(n) };
}

/** The latest settled messages, oldest first, for the agent's history. */
export async function recentMessages(db: Sequelize, conversationId: string, count: number): Promise<MessageRow[]> {
  if (count === 0) return [];
  const rows = await select<MessageRow>(db, "SELECT * FROM chat_messages WHERE conversation_id = $1 AND status <> 'streaming' ORDER BY created_at DESC, id DESC LIMIT $2", [conversationId, count]);
  return rows.reverse();
}

export async function streamingMessage(db: Sequelize, conversationId: string): Promise<MessageRow | undefined> {
  return (await select<MessageRow>(db, "SELECT * FROM chat_messages WHERE conversation_id = $1 AND status = 'streaming'", [conversationId]))[0];
}

export async function getMessage(sql: PooledSql, id: string): Promise<MessageRow | undefined> {
  return sql.one<MessageRow>('SELECT * FROM chat_messages WHERE id = $1', [id], 'chat_get_message');
}

/** The assistant message of a run the caller may see (their conversation's): the streaming one, else the latest. */
export async function runMessage(db: Sequelize, who: Caller, runId: string): Promise<MessageRow | undefined> {
  if (!isUuid(runId)) return undefined;
  const [row] = await select<MessageRow>(
    db,
    `SELECT m.* FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id
     WHERE m.run_id = $1 AND m.role = 'assistant' AND c.entity_id = $2 AND (c.kind = 'workspace' OR c.user_id = $3)
     ORDER BY (m.status = 'streaming') DESC, m.created_at DESC, m.id DESC LIMIT 1`,
    [runId.toLowerCase(), who.entity_id, who.id],
  );
  return row;
}

export async function streamingOfRun(sql: PooledSql, runId: string): Promise<MessageRow | undefined> {
  return sql.one<MessageRow>("SELECT * FROM chat_messages WHERE run_id = $1 AND status = 'streaming'", [runId], 'chat_streaming_of_run');
}

/** The latest assistant message of a run, and whether its conversation still waits on that run. */
export async function lastOfRun(db: Sequelize, runId: string): Promise<(MessageRow & { waits_on_run: boolean }) | undefined> {
  const rows = await select<MessageRow & { waits_on_run: boolean }>(
    db,
    `SELECT m.*, (c.pending->>'run_id' = $2) IS TRUE AS waits_on_run FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id
      WHERE m.run_id = $1 AND m.role = 'assistant' ORDER BY m.created_at DESC, m.id DESC LIMIT 1`,
    [runId, runId],
  );
  return rows[0];
}

export interface Settlement {
  content: string;
  status: Exclude<MessageStatus, 'streaming'>;
  usage: { input_tokens: number; output_tokens: number };
  pause: Pending | null;
  error: { code: string; message: string } | null;
}

/**
 * Settles a streaming assistant message, exactly once: the first of its writers (the live
 * stream, the reply wait, the run's outcome) wins and the others read what it wrote. A pause
 * becomes the conversation's pending request in the same statement.
 */
export async function settleMessage(sql: PooledSql, messageId: string, s: Settlement): Promise<MessageRow | undefined> {
  const row = await sql.one<MessageRow>(
    `WITH m AS (
       UPDATE chat_messages SET content = $2, status = $3, usage = $4, pause = $5, error = $6, updated_at = now()
        WHERE id = $1 AND status = 'streaming' RETURNING *
     ), c AS (
       UPDATE chat_conversations SET pending = $5, updated_at = now() WHERE id = (SELECT conversation_id FROM m)
     )
     SELECT * FROM m`,
    [messageId, s.content, s.status, JSON.stringify(s.usage), s.pause ? JSON.stringify(s.pause) : null, s.error ? JSON.stringify(s.error) : null],
    'chat_settle_message',
  );
  return row ?? getMessage(sql, messageId);
}
