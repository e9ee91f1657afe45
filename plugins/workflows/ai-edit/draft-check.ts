import type { ServiceBroker } from 'moleculer';
import { DEFINITION_PARAMS } from '../schemas.ts';
import { checkDefinition, type DefinitionBody, type DefinitionProblem } from '../definitions/validate.ts';
import type { NodeTypeRegistry } from '../engine/node-types.ts';

type Check = (value: unknown) => true | { type: string; field?: string; message?: string }[];

const compiled = new WeakMap<ServiceBroker, Check>();

/** The request's own declaration of a definition body, compiled once per broker, checks a model's draft. */
function shapeCheck(broker: ServiceBroker): Check {
  let check = compiled.get(broker);
  if (!check) {
    if (!broker.validator) throw new Error('the broker has no validator');
    check = broker.validator.compile({ $$strict: 'remove', ...DEFINITION_PARAMS } as never) as unknown as Check;
    compiled.set(broker, check);
  }
  return check;
}

/**
 * Every reason a draft could not be saved, in the terms a save's 422 uses: first its shape
 * (the definition params a save validates), then the graph and configs. Empty: it would save.
 */
export function draftProblems(broker: ServiceBroker, nodeTypes: NodeTypeRegistry, draft: Record<string, unknown>): { body?: DefinitionBody; problems: DefinitionProblem[] } {
  const body = structuredClone(draft);
  const shape = shapeCheck(broker)(body);
  if (shape !== true) return { problems: shape.map((e) => ({ field: e.field ?? '', message: e.message ?? e.type, type: e.type })) };
  return checkDefinition(body as unknown as DefinitionBody, (type) => nodeTypes.get(type)?.description);
}
