import type { Context } from 'moleculer';
import { entityOf, identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { INITIAL_STATUSES } from '../domain/state-machine.ts';
import { placeholdersOf } from '../domain/template.ts';
import { invalidField } from '../errors.ts';
import { ASSIGNEE_RULE, DESCRIPTION_RULE, PRIORITY_RULE, REQUESTER_RULE, UUID_RULE, normalizeIds } from '../fields.ts';
import { checkRefs } from '../refs.ts';
import { iso } from '../db/task-row.ts';
import { created, dbOf, type TasksAction } from '../service.ts';
import { deleteRow, getRow, insertRow, pageRows, updateRow, type CollectionTable, type Row } from './store.ts';

/** Task templates: a title and description with `{{variable}}` placeholders, plus task defaults. */

export const TEMPLATES: CollectionTable = { table: 'task_templates', label: 'task template', columns: ['name', 'title', 'description', 'variables', 'defaults', 'created_by'], jsonColumns: ['variables', 'defaults'] };

export const TEMPLATE_DEFAULTS_RULE = {
  type: 'object',
  strict: true,
  optional: true,
  props: {
    priority: { ...PRIORITY_RULE, optional: true },
    status: { type: 'enum', values: [...INITIAL_STATUSES], optional: true },
    assignee: { ...ASSIGNEE_RULE, optional: true, nullable: true },
    category_id: { ...UUID_RULE, optional: true, nullable: true },
    workspace_id: { ...UUID_RULE, optional: true, nullable: true },
    sla_policy_id: { ...UUID_RULE, optional: true, nullable: true },
    requester: { ...REQUESTER_RULE, optional: true, nullable: true },
  },
} as const;

export interface TemplateDefaults {
  priority?: number;
  status?: string;
  assignee?: { type: 'user' | 'agent'; id: string } | null;
  category_id?: string | null;
  workspace_id?: string | null;
  sla_policy_id?: string | null;
  requester?: string | null;
}

const FIELDS = {
  name: { type: 'string', trim: true, min: 1, max: 100 },
  title: { type: 'string', trim: true, min: 1, max: 500 },
  description: { ...DESCRIPTION_RULE, optional: true },
  defaults: TEMPLATE_DEFAULTS_RULE,
} as const;

export const TEMPLATE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    variables: { type: 'array', items: { type: 'string' }, description: 'the {{placeholders}} the template uses' },
    defaults: { type: 'object' },
    created_by: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'name', 'title', 'variables', 'defaults'],
};
const ID = { template_id: { type: 'string', min: 1, max: 64 } } as const;

type TemplateInput = { name?: string; title?: string; description?: string; defaults?: TemplateDefaults };

export function templateView(row: Row): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    description: row.description,
    variables: row.variables,
    defaults: row.defaults,
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Checks the defaults' references, and derives the variables from the texts. */
async function prepared(ctx: Context, input: TemplateInput, current?: Row): Promise<Record<string, unknown>> {
  const defaults = input.defaults ? normalizeIds(input.defaults) : undefined;
  if (defaults) await checkRefs(ctx, dbOf(ctx.service!), entityOf(ctx), defaults, undefined, 'defaults.');
  const title = input.title ?? (current?.title as string);
  const description = input.description ?? (current?.description as string | undefined);
  const requester = (defaults ?? (current?.defaults as TemplateDefaults | undefined))?.requester;
  return { ...input, defaults, variables: placeholdersOf(title, description, requester) };
}

export const listTemplates: TasksAction = {
  rest: 'GET /templates',
  summary: 'List task templates',
  tags: ['task collections'],
  params: { ...PAGING_PARAMS },
  response: pageSchema(TEMPLATE_SCHEMA),
  async handler(ctx: Context<{ limit: number; offset: number }>) {
    const page = { limit: ctx.params.limit, offset: ctx.params.offset };
    const { rows, total } = await pageRows(dbOf(this), TEMPLATES, entityOf(ctx), page);
    return { items: rows.map(templateView), total, ...page };
  },
};

export const createTemplate: TasksAction = {
  rest: 'POST /templates',
  summary: 'Create a task template',
  description: 'Write `{{name}}` in the title, description or default requester; `POST /tasks/templates/{id}/instantiate` fills them in.',
  tags: ['task collections'],
  params: FIELDS,
  response: { 201: { description: 'Created', schema: TEMPLATE_SCHEMA } },
  async handler(ctx: Context<TemplateInput>) {
    const values = await prepared(ctx, ctx.params);
    const row = await insertRow(dbOf(this), TEMPLATES, entityOf(ctx), { defaults: {}, ...values, created_by: identityOf(ctx).id });
    created(ctx);
    return templateView(row);
  },
};

export const getTemplate: TasksAction = {
  rest: 'GET /templates/:template_id',
  summary: 'Get a task template',
  tags: ['task collections'],
  params: ID,
  response: TEMPLATE_SCHEMA,
  async handler(ctx: Context<{ template_id: string }>) {
    return templateView(await getRow(dbOf(this), TEMPLATES, entityOf(ctx), ctx.params.template_id));
  },
};

export const updateTemplate: TasksAction = {
  rest: 'PUT /templates/:template_id',
  summary: 'Update a task template',
  tags: ['task collections'],
  params: { ...ID, ...FIELDS, name: { ...FIELDS.name, optional: true }, title: { ...FIELDS.title, optional: true } },
  response: TEMPLATE_SCHEMA,
  async handler(ctx: Context<TemplateInput & { template_id: string }>) {
    const { template_id: id, ...fields } = ctx.params;
    const current = await getRow(dbOf(this), TEMPLATES, entityOf(ctx), id);
    if (fields.title === '') throw invalidField('title', 'The title may not be empty.');
    return templateView(await updateRow(dbOf(this), TEMPLATES, entityOf(ctx), id, await prepared(ctx, fields, current)));
  },
};

export const deleteTemplate: TasksAction = {
  rest: 'DELETE /templates/:template_id',
  summary: 'Delete a task template',
  tags: ['task collections'],
  params: ID,
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ template_id: string }>) {
    await deleteRow(dbOf(this), TEMPLATES, entityOf(ctx), ctx.params.template_id);
    return undefined;
  },
};
