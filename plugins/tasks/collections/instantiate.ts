import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { missingVariables, render, type Variables } from '../domain/template.ts';
import { invalid } from '../errors.ts';
import { normalizeIds, TASK_FIELD_PARAMS, type TaskFieldInput } from '../fields.ts';
import { createTask, emitCreated } from '../ops/create.ts';
import { taskView } from '../db/task-row.ts';
import { TASK_SCHEMA } from '../schemas.ts';
import { created, dbOf, userActor, type TasksAction } from '../service.ts';
import { getRow } from './store.ts';
import { TEMPLATES, type TemplateDefaults } from './templates.ts';

const MAX_VALUE_LENGTH = 10_000;
const MAX_VARIABLES = 100;

/**
 * `variables`: a flat record of strings, numbers or booleans, so the OpenAPI document (and the
 * clients generated from it) says exactly that; a nested value is a 422 naming the variable.
 */
const VARIABLES_PARAM = {
  type: 'record',
  optional: true,
  key: { type: 'string', min: 1, max: 100 },
  value: { type: 'multi', rules: [{ type: 'string', max: MAX_VALUE_LENGTH }, { type: 'number' }, { type: 'boolean' }] },
} as const;

/** At most MAX_VARIABLES of them (a record rule has no count limit); else a 422 on `variables`. */
function checkVariables(variables: Variables): Variables {
  const count = Object.keys(variables).length;
  if (count > MAX_VARIABLES) throw invalid([{ field: 'variables', message: `At most ${MAX_VARIABLES} variables, got ${count}.`, type: 'objectMaxProps' }]);
  return variables;
}

const { title: _title, description: _description, status: _status, ...OVERRIDABLE } = TASK_FIELD_PARAMS;

/** `POST /api/v1/tasks/templates/{id}/instantiate`: render the placeholders into a new task. */
export const instantiateTemplate: TasksAction = {
  rest: 'POST /templates/:template_id/instantiate',
  location: '/tasks/{id}',
  summary: 'Create a task from a template',
  description: 'Every `{{variable}}` of the template must be given in `variables` (422 naming each missing one; at most 100 variables). `overrides` replace the template defaults.',
  tags: ['task collections'],
  params: {
    template_id: { type: 'string', min: 1, max: 64 },
    variables: VARIABLES_PARAM,
    overrides: { type: 'object', strict: true, optional: true, props: OVERRIDABLE },
  },
  response: { 201: { description: 'Created', schema: TASK_SCHEMA } },
  async handler(ctx: Context<{ template_id: string; variables?: Variables; overrides?: TaskFieldInput }>) {
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
