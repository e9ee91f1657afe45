import type { ProblemField } from '../../api/problem';
import { configProblems } from '../../forms/config-validator';
import type { ConfigProblem } from '../../forms/problem-messages';
import { STEP_ID_PATTERN, type NodeTypeInfo, type Step } from '../../graph/types';

/** Where on a step a problem shows: a config field (pointer into the config), or one of the step's own fields. */
export type StepField = 'id' | 'type' | 'next' | 'name' | 'step';

export interface StepProblems {
  config: ConfigProblem[];
  fields: Partial<Record<StepField, string[]>>;
}

export interface MappedProblems {
  byStep: Map<string, StepProblems>;
  /** problems of the whole definition (no entry step, trigger type) */
  general: string[];
}

const STEP_POINTER = /^\/steps\/\d+(\/.*)?$/;

function entry(map: Map<string, StepProblems>, stepId: string): StepProblems {
  let e = map.get(stepId);
  if (!e) map.set(stepId, (e = { config: [], fields: {} }));
  return e;
}

function addField(e: StepProblems, field: StepField, message: string): void {
  (e.fields[field] ??= []).push(message);
}

/**
 * A 422's problems onto nodes and fields by what the server says, never by reading its
 * messages: `step_id` names the node, the JSON `pointer` (`/steps/<i>/config/url`) the field.
 */
export function mapServerProblems(errors: ProblemField[] | undefined): MappedProblems {
  const byStep = new Map<string, StepProblems>();
  const general: string[] = [];
  for (const p of errors ?? []) {
    const match = p.pointer ? STEP_POINTER.exec(p.pointer) : null;
    if (!p.step_id || !match) {
      general.push(p.message);
      continue;
    }
    const e = entry(byStep, p.step_id);
    const rest = match[1] ?? '';
    if (rest === '/config' || rest.startsWith('/config/')) e.config.push({ pointer: rest.slice('/config'.length), message: p.message });
    else {
      const field = rest.split('/')[1];
      addField(e, field === 'id' || field === 'type' || field === 'next' || field === 'name' ? field : 'step', p.message);
    }
  }
  return { byStep, general };
}

/** a config's problems by the config object (edits replace it; a move keeps it): a drag does not validate again */
const checked = new WeakMap<object, { schema: unknown; problems: ConfigProblem[] }>();

function configProblemsOnce(schema: unknown, config: Record<string, unknown>): ConfigProblem[] {
  const hit = checked.get(config);
  if (hit && hit.schema === schema) return hit.problems;
  const problems = configProblems(schema, config).map((p) => ({ ...p, message: `config${p.pointer.replaceAll('/', '.')} ${p.message}` }));
  checked.set(config, { schema, problems });
  return problems;
}

/** What the editor checks itself before a save: ids, duplicates, known types, each config against its schema. */
export function localProblems(steps: Step[], types: Map<string, NodeTypeInfo>): MappedProblems {
  const byStep = new Map<string, StepProblems>();
  const seen = new Set<string>();
  for (const step of steps) {
    if (!STEP_ID_PATTERN.test(step.id)) addField(entry(byStep, step.id), 'id', 'The id must start with a letter or _ and hold only letters, digits, _ and -.');
    if (seen.has(step.id)) addField(entry(byStep, step.id), 'id', `Another step already has the id '${step.id}'.`);
    seen.add(step.id);
    const type = types.get(step.type);
    if (!type) {
      addField(entry(byStep, step.id), 'type', `'${step.type}' is not a loaded node type.`);
      continue;
    }
    const problems = configProblemsOnce(type.config_schema, step.config);
    if (problems.length) entry(byStep, step.id).config.push(...problems);
  }
  return { byStep, general: [] };
}

export function countOf(p: StepProblems | undefined): number {
  if (!p) return 0;
  return p.config.length + Object.values(p.fields).reduce((n, list) => n + (list?.length ?? 0), 0);
}
