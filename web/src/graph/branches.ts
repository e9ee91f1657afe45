import type { NodeTypeInfo, Step } from './types';

/** One source handle of a node: a declared output, and the config path naming its target, if any. */
export interface Branch {
  output: string;
  /** `branches.true` (one target), `cases.*.next` (one per array item), or none (plain `next`) */
  path?: string[];
}

/**
 * A type's outputs paired with its `branch_targets`: a path ending in an output's name is that
 * output's (`branches.true` -> `true`); the rest pair up in order (`cases.*.next` -> `case`).
 */
export function branchesOf(type: NodeTypeInfo | undefined): Branch[] {
  if (!type) return [{ output: 'main' }];
  const paths = (type.branch_targets ?? []).map((p) => p.split('.'));
  const left = [...paths];
  const named = type.outputs.map((output) => {
    const i = left.findIndex((p) => p[p.length - 1] === output);
    return i >= 0 ? { output, path: left.splice(i, 1)[0] } : { output };
  });
  return named.map((b) => (b.path || !left.length ? b : { ...b, path: left.shift() }));
}

const isWildcard = (path: string[] | undefined): boolean => Boolean(path?.includes('*'));

function valuesAt(value: unknown, path: string[]): unknown[] {
  if (!path.length) return [value];
  if (!value || typeof value !== 'object') return [];
  const [head = '', ...rest] = path;
  const children = head === '*' ? Object.values(value) : [(value as Record<string, unknown>)[head]];
  return children.flatMap((c) => valuesAt(c, rest));
}

/** The step ids a branch's config path names (one for `branches.true`, one per item for `cases.*.next`). */
export function targetsOf(step: Step, branch: Branch): string[] {
  // a condition side may also name a list of steps
  return branch.path ? valuesAt(step.config, branch.path).flat().filter((v): v is string => typeof v === 'string' && v !== '') : [];
}

/** The output an edge to `target` leaves by: the branch whose config names it, else the first output. */
export function branchOfEdge(step: Step, target: string, branches: Branch[]): string | undefined {
  const hit = branches.find((b) => targetsOf(step, b).includes(target));
  return hit?.output ?? branches[0]?.output;
}

function setAt(config: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head = '', ...rest] = path;
  if (!rest.length) return { ...config, [head]: value };
  const child = config[head];
  return { ...config, [head]: setAt(child && typeof child === 'object' && !Array.isArray(child) ? (child as Record<string, unknown>) : {}, rest, value) };
}

/** a config path's array (the part before `*`) with one item appended that names `target` (`cases: [..., {next: target}]`) */
function appendAt(config: Record<string, unknown>, path: string[], target: string): Record<string, unknown> {
  const star = path.indexOf('*');
  const arrayPath = path.slice(0, star);
  const itemPath = path.slice(star + 1);
  const current = valuesAt(config, arrayPath)[0];
  const list = Array.isArray(current) ? current : [];
  const item = itemPath.length ? setAt({}, itemPath, target) : target;
  return setAt(config, arrayPath, [...list, item]);
}

/** The step with an edge to `target` from `output`: in `next`, and in the branch's config path. */
export function connect(step: Step, output: string | null | undefined, target: string, branches: Branch[]): Step {
  const branch = branches.find((b) => b.output === output);
  let config = step.config;
  let next = step.next.includes(target) ? step.next : [...step.next, target];
  if (branch?.path && !isWildcard(branch.path)) {
    const previous = valuesAt(config, branch.path)[0];
    config = setAt(config, branch.path, target);
    if (typeof previous === 'string' && previous !== target && !stillNamed({ ...step, config }, previous, branches)) next = next.filter((n) => n !== previous);
  } else if (branch?.path) {
    config = appendAt(config, branch.path, target);
  }
  return { ...step, config, next };
}

function stillNamed(step: Step, target: string, branches: Branch[]): boolean {
  return branches.some((b) => targetsOf(step, b).includes(target));
}

function without(value: unknown, path: string[], target: string): unknown {
  if (!path.length) return Array.isArray(value) ? value.filter((v) => v !== target) : value === target ? undefined : value;
  if (!value || typeof value !== 'object') return value;
  const [head = '', ...rest] = path;
  if (head === '*') {
    if (Array.isArray(value)) return value.map((v) => without(v, rest, target));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, without(v, rest, target)]));
  }
  const obj = value as Record<string, unknown>;
  if (!(head in obj)) return value;
  const child = without(obj[head], rest, target);
  const copy = { ...obj };
  if (child === undefined) delete copy[head];
  else copy[head] = child;
  return copy;
}

/**
 * The step without its edge to `target`: out of `next` and out of every branch path naming it.
 * With `output`, only that branch lets go of it; `next` keeps it while another branch still names it.
 */
export function disconnect(step: Step, target: string, branches: Branch[], output?: string | null): Step {
  let config: unknown = step.config;
  const from = output == null ? branches : branches.filter((b) => b.output === output);
  for (const b of from) if (b.path) config = without(config, b.path, target);
  const updated = { ...step, config: config as Record<string, unknown> };
  const keep = output != null && stillNamed(updated, target, branches);
  return { ...updated, next: keep ? step.next : step.next.filter((n) => n !== target) };
}

/** Every step with `from` renamed to `to` in ids, `next` and branch paths. */
export function renameStep(steps: Step[], from: string, to: string, branchesFor: (s: Step) => Branch[]): Step[] {
  return steps.map((s) => {
    const renamed = s.id === from ? { ...s, id: to } : s;
    if (!s.next.includes(from)) return renamed;
    let config: unknown = renamed.config;
    for (const b of branchesFor(s)) if (b.path) config = replaceAt(config, b.path, from, to);
    return { ...renamed, config: config as Record<string, unknown>, next: renamed.next.map((n) => (n === from ? to : n)) };
  });
}

function replaceAt(value: unknown, path: string[], from: string, to: string): unknown {
  if (!path.length) return value === from ? to : value;
  if (!value || typeof value !== 'object') return value;
  const [head = '', ...rest] = path;
  if (head === '*') {
    if (Array.isArray(value)) return value.map((v) => replaceAt(v, rest, from, to));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceAt(v, rest, from, to)]));
  }
  const obj = value as Record<string, unknown>;
  return head in obj ? { ...obj, [head]: replaceAt(obj[head], rest, from, to) } : value;
}
