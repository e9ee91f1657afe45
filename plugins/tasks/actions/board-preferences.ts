import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { defaultBoardPreferences, preferenceProblems, VIEW_MODES, type BoardPreferences } from '../domain/board-preferences.ts';
import { BOARD_COLUMN_KEYS } from '../domain/board-columns.ts';
import { invalid } from '../errors.ts';
import { iso } from '../db/task-row.ts';
import { BOARD_PREFERENCES_SCHEMA } from '../schemas.ts';
import { dbOf, type TasksAction } from '../service.ts';

interface PreferencesRow extends BoardPreferences {
  updated_at: Date;
}

/** `GET /api/v1/tasks/board-preferences`: the caller's own, or the defaults. */
export const getBoardPreferences: TasksAction = {
  rest: 'GET /board-preferences',
  summary: "The caller's board preferences",
  tags: ['tasks'],
  response: BOARD_PREFERENCES_SCHEMA,
  async handler(ctx: Context) {
    const who = identityOf(ctx);
    const [row] = await dbOf(this).query<PreferencesRow>(
      'SELECT mode, visible_columns, column_order, updated_at FROM task_board_preferences WHERE entity_id = $1 AND user_id = $2',
      { bind: [who.entity_id, who.id], type: QueryTypes.SELECT },
    );
    if (!row) return { ...defaultBoardPreferences(), updated_at: null };
    return { mode: row.mode, visible_columns: row.visible_columns, column_order: row.column_order, updated_at: iso(row.updated_at) };
  },
};

const COLUMN_LIST = { type: 'array', items: { type: 'enum', values: [...BOARD_COLUMN_KEYS] }, max: BOARD_COLUMN_KEYS.length } as const;

/** `PUT /api/v1/tasks/board-preferences`: replace them (fields left out keep their current value). */
export const putBoardPreferences: TasksAction = {
  rest: 'PUT /board-preferences',
  role: 'viewer',
  summary: "Save the caller's board preferences",
  tags: ['tasks'],
  params: {
    mode: { type: 'enum', values: [...VIEW_MODES], optional: true },
    visible_columns: { ...COLUMN_LIST, optional: true },
    column_order: { ...COLUMN_LIST, optional: true },
  },
  response: BOARD_PREFERENCES_SCHEMA,
  async handler(ctx: Context<Partial<BoardPreferences>>) {
    const who = identityOf(ctx);
    const db = dbOf(this);
    const current = (await getBoardPreferences.handler!.call(this, ctx)) as BoardPreferences;
    const next: BoardPreferences = {
      mode: ctx.params.mode ?? current.mode,
      visible_columns: ctx.params.visible_columns ?? current.visible_columns,
      column_order: ctx.params.column_order ?? current.column_order,
    };
    const problems = preferenceProblems(next);
    if (problems.length) throw invalid(problems);
    const now = new Date();
    await db.query(
      `INSERT INTO task_board_preferences (entity_id, user_id, mode, visible_columns, column_order, created_at, updated_at)
       VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $6)
       ON CONFLICT (entity_id, user_id) DO UPDATE SET mode = EXCLUDED.mode, visible_columns = EXCLUDED.visible_columns, column_order = EXCLUDED.column_order, updated_at = EXCLUDED.updated_at`,
      { bind: [who.entity_id, who.id, next.mode, JSON.stringify(next.visible_columns), JSON.stringify(next.column_order), now] },
    );
    return { ...next, updated_at: now.toISOString() };
  },
};
