import type { Context } from 'moleculer';
import { identityOf, entityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { checkDefinition, type DefinitionBody } from '../definitions/validate.ts';
import { definitionView, triggerTypeOf } from '../store/definitions.ts';
import { DEFINITION_PARAMS, DEFINITION_SCHEMA, ID_PARAM } from '../schemas.ts';
import type { WorkflowsAction, WorkflowsService } from '../service.ts';

/** Rejects the save (422, every problem by step id) unless the definition is sound. */
export function checkedBody(svc: WorkflowsService, body: DefinitionBody): { body: DefinitionBody; triggerType: string } {
  const { body: normalised, problems } = checkDefinition(body, (type) => svc.nodeTypes.get(type)?.description);
  if (problems.length) {
    throw WORKFLOWS_ERR.INVALID_DEFINITION(`The workflow has ${problems.length} problem(s): ${problems.map((p) => p.message).join(' ')}`, { errors: problems });
  }
  const entry = normalised.steps.find((s) => svc.nodeTypes.get(s.type)?.description.entry);
  return { body: normalised, triggerType: triggerTypeOf(normalised, entry?.type) };
}

export const listDefinitions: WorkflowsAction = {
  rest: 'GET /',
  summary: 'List workflow definitions',
  tags: ['workflows'],
  params: { ...PAGING_PARAMS },
  response: pageSchema(DEFINITION_SCHEMA),
  async handler(ctx: Context<{ limit: number; offset: number }>) {
    const page = await this.definitions.list(entityOf(ctx), ctx.params.limit, ctx.params.offset);
    return { items: page.items.map(definitionView), total: page.total, limit: ctx.params.limit, offset: ctx.params.offset };
  },
};

export const createDefinition: WorkflowsAction = {
  rest: 'POST /',
  summary: 'Create a workflow definition',
  description: 'Rejected with 422 listing every problem by step id unless there is exactly one entry step, every next id exists, every type is a loaded node type, every config validates against its type schema and there is no cycle outside a loop construct.',
  tags: ['workflows'],
  params: { ...DEFINITION_PARAMS },
  response: { 201: DEFINITION_SCHEMA },
  async handler(ctx: Context<DefinitionBody>) {
    const who = identityOf(ctx);
    const { body, triggerType } = checkedBody(this, ctx.params);
    const row = await this.definitions.create(who.entity_id, who.id, body, triggerType);
    (ctx.meta as { $statusCode?: number }).$statusCode = 201;
    return definitionView(row);
  },
};

export const getDefinition: WorkflowsAction = {
  rest: 'GET /:id',
  summary: 'Get a workflow definition',
  tags: ['workflows'],
  params: { ...ID_PARAM },
  response: { type: 'object', properties: { ...(DEFINITION_SCHEMA.properties as object), versions: { type: 'array', items: { type: 'object' } } }, required: DEFINITION_SCHEMA.required },
  async handler(ctx: Context<{ id: string }>) {
    const entityId = entityOf(ctx);
    const row = await this.definitions.get(entityId, ctx.params.id);
    const versions = await this.definitions.versions(entityId, row.id);
    return { ...definitionView(row), versions: versions.map((v) => ({ version: v.version, created_by: v.created_by, created_at: new Date(v.created_at).toISOString() })) };
  },
};

export const updateDefinition: WorkflowsAction = {
  rest: 'PUT /:id',
  summary: 'Replace a workflow definition (a new version)',
  description: 'Validated like a create. Runs already started keep the snapshot they started with.',
  tags: ['workflows'],
  params: { ...ID_PARAM, ...DEFINITION_PARAMS },
  response: DEFINITION_SCHEMA,
  async handler(ctx: Context<DefinitionBody & { id: string }>) {
    const who = identityOf(ctx);
    await this.definitions.get(who.entity_id, ctx.params.id);
    const { id, ...rest } = ctx.params;
    const { body, triggerType } = checkedBody(this, rest);
    const row = await this.definitions.update(who.entity_id, id, who.id, body, triggerType);
    this.broker.broadcast('workflows.bindings.changed', {});
    return definitionView(row);
  },
};

export const removeDefinition: WorkflowsAction = {
  rest: 'DELETE /:id',
  summary: 'Delete a workflow definition and its bindings',
  description: 'Runs keep their snapshot and stay readable.',
  tags: ['workflows'],
  params: { ...ID_PARAM },
  async handler(ctx: Context<{ id: string }>) {
    await this.definitions.remove(entityOf(ctx), ctx.params.id);
    this.broker.broadcast('workflows.bindings.changed', {});
  },
};
