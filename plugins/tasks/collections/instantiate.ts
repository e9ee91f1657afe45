import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { missingVariables, render, type Variables } from '../domain/template.ts';
import { invalid, type FieldProblem } from '../errors.ts';
import { normalizeIds, TASK_FIELD_PARAMS, type TaskFieldInput } from '../fields.ts';
import { createTask, emitCreated } from '../ops/create.ts';
import { taskView } from '../db/task-row.ts';
import { TASK_SCHEMA } from '../schemas.ts';
import { created, dbOf, userActor, type TasksAction } from '../service.ts';
import { getRow } from './store.ts';
import { TEMPLATES, type TemplateDefaults } from './templates.ts';

const MAX_VALUE_LENGTH = 10_000;

/** Variables are a flat object of strings, numbers or booleans; else a 422 naming the variable. */
function checkVariables(variables: Record<string, unknown>): Variables {
  const problems: FieldProblem[] = [];
  for (const [name, value] of Object.entries(variables)) {
    const ok = (typeof value === 'string' && value.length <= MAX_VALUE_LENGTH) || typeof value === 'number' || typeof value === 'boolean';
    if (!ok) problems.push({ field: `variables.${name}`, message: `Variable '${name}' must be a string (at most ${MAX_VALUE_LENGTH} characters), a number or a boolean.`, type: 'variable' });
  }
  if (problems.length) throw invalid(problems);
  return variables as Variables;
}

const { title: _title, description: _description, status: _status, ...OVERRIDABLE } = TASK_FIELD_PARAMS;

/** `POST /api/v1/tasks/templates/{id}/instantiate`: render the placeholders into a new task. */
export const instantiateTemplate: TasksAction = {
  rest: 'POST /templates/:template_id/instantiate',
  location: '/tasks/{id}',
  summary: 'Create a task from a template',
  description: 'Every `{{variable}}` of the template must be given in `variables` (422 naming each missing one). `overrides` replace the template defaults.',
  tags: ['task collections'],
  params: {
    template_id: { type: 'string', min: 1, max: 64 },
    variables: { type: 'object', optional: true, maxProps: 100 },
    overrides: { type: 'object', strict: true, optional: true, props: OVERRIDABLE },
  },
  response: { 201: { description: 'Created', schema: TASK_SCHEMA } },
  async handler(ctx: Context<{ template_id: string; variables?: Record<string, unknown>; overrides?: TaskFieldInput }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const template = await getRow(db, TEMPLATES, entityId, ctx.params.template_id);
    const variables = checkVariables(ctx.params.variables ?? {});
    const defaults = (template.defaults ?? {}) as TemplateDefaults;
    const texts = [template.title as string, template.description as string, defaults.requester];
    const missing = missingVariables(variables, ...texts);
    if (missing.length) {
      throw invalid(missing.map((name) => ({ field: `variables.${name}`, message: `The template needs a value for '{{${name}}}'.`, type: 'required' })));
    }
    const input: TaskFieldInput & { title: string } = {
      ...defaults,
      requester: defaults.requester ? render(defaults.requester, variables) : defaults.requester,
      ...normalizeIds(ctx.params.overrides ?? {}),
      title: render(template.title as string, variables).trim().slice(0, 500) || (template.name as string),
      description: render((template.description as string) ?? '', variables),
    };
    if ((input.description ?? '').length > 100_000) throw invalid([{ field: 'variables', message: 'The rendered description is longer than 100000 characters.', type: 'length' }]);
    const actor = userActor(ctx);
    const result = await createTask(ctx, db, entityId, input, actor);
    emitCreated(ctx, result, actor);
    created(ctx);
    return { ...taskView(result.row), template_id: template.id };
  },
};
