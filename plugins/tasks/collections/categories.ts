import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { iso } from '../db/task-row.ts';
import { created, dbOf, type TasksAction } from '../service.ts';
import { deleteRow, getRow, insertRow, pageRows, updateRow, type CollectionTable, type Row } from './store.ts';

/** Categories (the spec's "collections"): a name, an icon and a color to group tasks by. */

const CATEGORIES: CollectionTable = { table: 'task_categories', label: 'category', columns: ['name', 'description', 'icon', 'color'] };

const FIELDS = {
  name: { type: 'string', trim: true, min: 1, max: 100 },
  description: { type: 'string', max: 2000, optional: true },
  icon: { type: 'string', trim: true, max: 64, optional: true, description: 'an icon name or an emoji' },
  color: { type: 'string', pattern: /^#[0-9a-fA-F]{6}$/, optional: true, description: '#rrggbb', messages: { stringPattern: "The 'color' field must be a #rrggbb hex color." } },
} as const;

const CATEGORY_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    icon: { type: 'string' },
    color: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'name', 'icon', 'color'],
};

const ID = { category_id: { type: 'string', min: 1, max: 64 } } as const;

type CategoryInput = { name?: string; description?: string; icon?: string; color?: string };

function view(row: Row) {
  return { id: row.id, name: row.name, description: row.description, icon: row.icon, color: row.color, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

const normalized = (p: CategoryInput): CategoryInput => ({ ...p, color: p.color?.toLowerCase() });

export const listCategories: TasksAction = {
  rest: 'GET /categories',
  summary: 'List task categories',
  tags: ['task collections'],
  params: { ...PAGING_PARAMS },
  response: pageSchema(CATEGORY_SCHEMA),
  async handler(ctx: Context<{ limit: number; offset: number }>) {
    const page = { limit: ctx.params.limit, offset: ctx.params.offset };
    const { rows, total } = await pageRows(dbOf(this), CATEGORIES, entityOf(ctx), page);
    return { items: rows.map(view), total, ...page };
  },
};

export const createCategory: TasksAction = {
  rest: 'POST /categories',
  summary: 'Create a task category',
  tags: ['task collections'],
  params: FIELDS,
  response: { 201: { description: 'Created', schema: CATEGORY_SCHEMA } },
  async handler(ctx: Context<CategoryInput>) {
    const row = await insertRow(dbOf(this), CATEGORIES, entityOf(ctx), normalized(ctx.params));
    created(ctx);
    return view(row);
  },
};

export const getCategory: TasksAction = {
  rest: 'GET /categories/:category_id',
  summary: 'Get a task category',
  tags: ['task collections'],
  params: ID,
  response: CATEGORY_SCHEMA,
  async handler(ctx: Context<{ category_id: string }>) {
    return view(await getRow(dbOf(this), CATEGORIES, entityOf(ctx), ctx.params.category_id));
  },
};

export const updateCategory: TasksAction = {
  rest: 'PUT /categories/:category_id',
  summary: 'Update a task category',
  tags: ['task collections'],
  params: { ...ID, ...FIELDS, name: { ...FIELDS.name, optional: true } },
  response: CATEGORY_SCHEMA,
  async handler(ctx: Context<CategoryInput & { category_id: string }>) {
    const { category_id: id, ...fields } = ctx.params;
    return view(await updateRow(dbOf(this), CATEGORIES, entityOf(ctx), id, normalized(fields)));
  },
};

export const deleteCategory: TasksAction = {
  rest: 'DELETE /categories/:category_id',
  summary: 'Delete a task category',
  description: 'Refused (409 `TASKS_ERR_IN_USE`) while tasks are in the category.',
  tags: ['task collections'],
  params: ID,
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ category_id: string }>) {
    await deleteRow(dbOf(this), CATEGORIES, entityOf(ctx), ctx.params.category_id, { sql: 'SELECT count(*)::int AS n FROM tasks WHERE category_id = $1 AND entity_id = $2', what: 'task(s)' });
    return undefined;
  },
};
