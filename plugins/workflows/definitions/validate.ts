import { validateJsonSchema, type SchemaProblem } from '../../../kernel/json-schema/validate.ts';
import type { NodeTypeDescription } from '../engine/node-types.ts';
import { loopProblems } from './loop-rules.ts';

export interface StepDefinition {
  id: string;
  type: string;
  name?: string;
  config: Record<string, unknown>;
  next: string[];
  /** where the editor drew the step; stored with the definition, never read at run time */
  position?: { x: number; y: number };
}

export interface DefinitionBody {
  name: string;
  description?: string;
  trigger_type?: string;
  steps: StepDefinition[];
  variables?: Record<string, unknown>;
}

export interface DefinitionProblem {
  field: string;
  message: string;
  type: string;
  step_id?: string;
  /** RFC 6901 pointer into the request body (`/steps/2/config/url`): where an editor shows the problem */
  pointer?: string;
}

export const TRIGGER_TYPES = ['manual', 'webhook', 'schedule', 'event', 'workspace_event'] as const;

/** Values at a config path such as `cases.*.next` (`*` steps into every item of an array or object). */
export function valuesAtPath(value: unknown, path: string[]): unknown[] {
  if (path.length === 0) return value === undefined ? [] : [value];
  if (!value || typeof value !== 'object') return [];
  const [head, ...rest] = path;
  const children = head === '*' ? Object.values(value as object) : [(value as Record<string, unknown>)[head]];
  return children.flatMap((child) => valuesAtPath(child, rest));
}

/** The step ids a branching step names in its config, by its type's `branch_targets`. */
export function branchTargets(desc: NodeTypeDescription, config: Record<string, unknown>): string[] {
  return (desc.branch_targets ?? []).flatMap((p) => valuesAtPath(config, p.split('.'))).flat().filter((t): t is string => typeof t === 'string');
}

const TIMEOUT_SCHEMA = { type: ['number', 'null'], exclusiveMinimum: 0 };
/** `each`: the list a step runs once per element of (engine/each.ts) */
const EACH_SCHEMA = { type: 'array', maxItems: 10_000 };

/**
 * A config checked against its type's schema. Any step accepts `timeout` (seconds; missing or
 * null: no outer deadline), `each` (a list, usually a template) and `each_flat`, whether or not
 * its type declares them.
 */
export function configProblems(desc: NodeTypeDescription, config: Record<string, unknown>): SchemaProblem[] {
  const declared = (desc.config_schema.properties as Record<string, unknown> | undefined) ?? {};
  const problems: SchemaProblem[] = [];
  let rest = config;
  if (!declared.timeout && 'timeout' in config) {
    const { timeout, ...others } = rest;
    problems.push(...validateJsonSchema(TIMEOUT_SCHEMA, timeout, 'timeout'));
    rest = others;
  }
  if (!declared.each && 'each' in config) {
    const { each, ...others } = rest;
    problems.push(...validateJsonSchema(EACH_SCHEMA, each, 'each'));
    rest = others;
  }
  if (!declared.each_flat && 'each_flat' in config) {
    const { each_flat: flat, ...others } = rest;
    problems.push(...validateJsonSchema({ type: 'boolean' }, flat, 'each_flat'));
    if (!('each' in config)) problems.push({ path: 'each_flat', pointer: '/each_flat', message: 'needs each' });
    rest = others;
  }
  return [...problems, ...validateJsonSchema(desc.config_schema, rest)];
}

/** Why a type cannot run per element (`config.each`): entries, loops, branching, skipped and durable nodes. */
function eachRefusal(desc: NodeTypeDescription): string | undefined {
  if (desc.entry) return 'an entry step';
  if (desc.loop) return 'a loop step';
  if (desc.skip_at_runtime) return 'a step never executed';
  if (desc.checkpoints) return 'a durable step';
  if (desc.branch_targets?.length) return 'a branching step (give it `items` for its item mode instead)';
  return undefined;
}

/** Cycles (as step id lists) not passing through a loop construct (whose one allowed cycle loop-rules.ts shapes). */
function cycles(steps: StepDefinition[], isLoop: (s: StepDefinition) => boolean): string[][] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const state = new Map<string, 'visiting' | 'done'>();
  const found: string[][] = [];
  const stack: string[] = [];
  const visit = (id: string): void => {
    state.set(id, 'visiting');
    stack.push(id);
    for (const next of byId.get(id)?.next ?? []) {
      if (!byId.has(next)) continue;
      if (state.get(next) === 'visiting') {
        const cycle = stack.slice(stack.indexOf(next));
        if (!cycle.some((c) => isLoop(byId.get(c)!))) found.push(cycle);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const s of steps) if (!state.has(s.id)) visit(s.id);
  return found;
}

/**
 * Every problem of a definition, by step id: exactly one entry node, unique ids, every `next`
 * id exists, every type is a loaded node type, every config validates against its type's
 * schema, branch targets are in `next`, and no cycle outside a loop construct.
 */
export function definitionProblems(body: DefinitionBody, typeOf: (type: string) => NodeTypeDescription | undefined): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const ids = new Set<string>();
  body.steps.forEach((step, index) => {
    if (ids.has(step.id)) problems.push({ field: `steps.${step.id}.id`, message: `Step id '${step.id}' is used more than once.`, type: 'duplicate_step', step_id: step.id, pointer: `/steps/${index}/id` });
    ids.add(step.id);
  });
  const entries: string[] = [];
  const targeted = new Set(body.steps.flatMap((s) => s.next));
  body.steps.forEach((step, index) => {
    const where = `steps.${step.id}`;
    const desc = typeOf(step.type);
    if (!desc) {
      problems.push({ field: `${where}.type`, message: `'${step.type}' is not a loaded node type (see GET /api/v1/workflows/node-types).`, type: 'unknown_type', step_id: step.id });
    } else {
      if (desc.entry) entries.push(step.id);
      for (const p of configProblems(desc, step.config ?? {})) {
        problems.push({ field: `${where}.config${p.path ? `.${p.path}` : ''}`, message: `config${p.path ? `.${p.path}` : ''} ${p.message}`, type: 'bad_config', step_id: step.id, pointer: `/steps/${index}/config${p.pointer}` });
      }
      const refusal = step.config && 'each' in step.config ? eachRefusal(desc) : undefined;
      if (refusal) problems.push({ field: `${where}.config.each`, message: `config.each cannot be set on ${refusal} (type '${step.type}').`, type: 'each_not_allowed', step_id: step.id, pointer: `/steps/${index}/config/each` });
      for (const target of branchTargets(desc, step.config ?? {})) {
        if (!step.next.includes(target)) problems.push({ field: `${where}.config`, message: `Branch target '${target}' is not in next.`, type: 'branch_not_in_next', step_id: step.id });
      }
      if (desc.entry && targeted.has(step.id)) problems.push({ field: `${where}`, message: `The entry step '${step.id}' cannot be the target of another step's next.`, type: 'entry_has_parent', step_id: step.id });
    }
    for (const next of step.next) {
      if (!ids.has(next)) problems.push({ field: `${where}.next`, message: `next names '${next}', which is not a step of this workflow.`, type: 'dangling_next', step_id: step.id });
    }
    if (new Set(step.next).size !== step.next.length) problems.push({ field: `${where}.next`, message: 'next lists a step more than once.', type: 'duplicate_next', step_id: step.id });
  });
  if (entries.length === 0) problems.push({ field: 'steps', message: 'The workflow needs exactly one entry step (trigger or webhook); it has none.', type: 'no_entry' });
  if (entries.length > 1) {
    for (const id of entries) problems.push({ field: `steps.${id}.type`, message: `The workflow needs exactly one entry step; it has ${entries.length}: ${entries.join(', ')}.`, type: 'multiple_entries', step_id: id });
  }
  const isLoop = (s: StepDefinition) => Boolean(typeOf(s.type)?.loop);
  problems.push(...loopProblems(body.steps, isLoop));
  for (const cycle of cycles(body.steps, isLoop)) {
    for (const id of cycle) problems.push({ field: `steps.${id}.next`, message: `Step '${id}' is on a cycle (${[...cycle, cycle[0]].join(' -> ')}) that passes through no loop construct.`, type: 'cycle', step_id: id });
  }
  if (body.trigger_type !== undefined && !(TRIGGER_TYPES as readonly string[]).includes(body.trigger_type)) {
    problems.push({ field: 'trigger_type', message: `trigger_type must be one of ${TRIGGER_TYPES.join(', ')}.`, type: 'bad_trigger_type' });
  }
  return withPointers(problems, body.steps);
}

/**
 * Gives each problem still without one the pointer its field names: `steps.<id>.next` is
 * `/steps/<index of id>/next` (the field's rest never holds a config key, whose dots would be
 * ambiguous: config problems carry their pointer from the schema validator).
 */
function withPointers(problems: DefinitionProblem[], steps: StepDefinition[]): DefinitionProblem[] {
  const indexOf = new Map<string, number>();
  steps.forEach((s, i) => indexOf.has(s.id) || indexOf.set(s.id, i));
  return problems.map((p) => {
    if (p.pointer !== undefined) return p;
    const index = p.step_id === undefined ? undefined : indexOf.get(p.step_id);
    if (index === undefined) return { ...p, pointer: `/${p.field.split('.').join('/')}` };
    const rest = p.field.slice(`steps.${p.step_id}`.length);
    return { ...p, pointer: `/steps/${index}${rest.split('.').join('/')}` };
  });
}

/** The definition as a save stores it (each step's `config` and `next` defaulted), with every reason it could not be saved. */
export function checkDefinition(body: DefinitionBody, typeOf: (type: string) => NodeTypeDescription | undefined): { body: DefinitionBody; problems: DefinitionProblem[] } {
  const normalised = { ...body, steps: body.steps.map((s) => ({ ...s, config: s.config ?? {}, next: s.next ?? [] })) };
  return { body: normalised, problems: definitionProblems(normalised, typeOf) };
}
