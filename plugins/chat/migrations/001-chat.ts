import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * Conversations and their messages. A conversation is one user's (`direct`) or a workspace's
 * shared thread (`workspace`, one per workspace). An assistant message is one segment of an
 * agent run: `streaming` while the run answers, then settled once (complete, interrupted,
 * failed); a run that parks (approval, question) and goes on gets a new message for the rest.
 * No foreign keys to other packages' tables (runs, agents, workspaces are checked through the broker).
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const statements = [
    `CREATE TABLE chat_conversations (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      user_id varchar(128),
      workspace_id uuid,
      agent_id uuid,
      kind varchar(16) NOT NULL CHECK (kind IN ('direct', 'workspace')),
      title varchar(200) NOT NULL DEFAULT '',
      pending jsonb,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK (kind = 'direct' OR workspace_id IS NOT NULL)
    )`,
    `CREATE UNIQUE INDEX chat_conversations_workspace_thread ON chat_conversations (entity_id, workspace_id) WHERE kind = 'workspace'`,
    'CREATE INDEX chat_conversations_owner ON chat_conversations (entity_id, user_id, updated_at DESC, id DESC)',
    `CREATE TABLE chat_messages (
      id uuid PRIMARY KEY,
      entity_id varchar(64) NOT NULL,
      conversation_id uuid NOT NULL REFERENCES chat_conversations (id) ON DELETE CASCADE,
      user_id varchar(128),
      role varchar(16) NOT NULL CHECK (role IN ('user', 'assistant')),
      content text NOT NULL DEFAULT '',
      files jsonb NOT NULL DEFAULT '[]',
      run_id uuid,
      start_seq integer,
      status varchar(16) NOT NULL CHECK (status IN ('complete', 'streaming', 'interrupted', 'failed')),
      usage jsonb,
      pause jsonb,
      error jsonb,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE INDEX chat_messages_conversation ON chat_messages (conversation_id, created_at, id)',
    'CREATE INDEX chat_messages_run ON chat_messages (run_id) WHERE run_id IS NOT NULL',
    `CREATE UNIQUE INDEX chat_messages_one_streaming ON chat_messages (conversation_id) WHERE status = 'streaming'`,
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
