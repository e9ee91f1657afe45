/**
 * Templates: `{{stepId.output}}` (with a path into it, e.g. `{{fetch.output.body.items[0].id}}`),
 * `{{varName}}` and `{{trigger}}` (with paths). They resolve against committed data only: the
 * scope holds outputs of receipts that have committed, never of a step still in flight.
 * A template that is the whole string yields the raw value; inside a longer string it is
 * interpolated (objects as JSON, missing values as an empty string).
 */
export interface TemplateScope {
  /** outputs of committed receipts, by step id */
  outputs: ReadonlyMap<string, unknown>;
  stepIds: ReadonlySet<string>;
  variables: Readonly<Record<string, unknown>>;
  trigger: unknown;
  /** the element a step with `config.each` runs for (engine/items.ts): `{{item}}`, `{{item_index}}`, `{{item_origin}}` */
  item?: ItemBinding;
  /** the item origins a committed step recorded (its receipt's `directive.origins`), for paired-item references */
  originsOf?(stepId: string): unknown;
}

/** One element of a step's `each` list: its value, its index there and its origin index (where it came from upstream). */
export interface ItemBinding {
  value: unknown;
  index: number;
  origin: number;
}

/**
 * The path segment `$item` (`{{fetch.output[$item].id}}`) picks a list's paired element: the
 * one at the current item's origin index; a list of one element pairs with every item, and a
 * value that is not a list is the single item itself (an entry step's payload).
 */
export const PAIRED_SEGMENT = '$item';
/** The path segment `$index` picks a list's element at the current item's index (a list made from the same `each` list). */
export const INDEX_SEGMENT = '$index';

const WHOLE = /^\s*\{\{\s*([^{}]+?)\s*\}\}\s*$/;
const ANY = /\{\{\s*([^{}]+?)\s*\}\}/g;
const HAS = /\{\{/;

export function pathOf(expression: string): string[] {
  return expression.replace(/\[(\d+|\$item|\$index|"[^"]*"|'[^']*')\]/g, (_, k: string) => `.${k.replace(/^["']|["']$/g, '')}`).split('.').filter(Boolean);
}

/** A list's element paired with the item whose origin is `origin`: by the list's recorded origins when it has them. */
function pairedElement(list: unknown[], origin: number, origins: unknown[] | undefined): unknown {
  if (list.length === 1) return list[0];
  if (origins && origins.length === list.length) {
    const at = origins.indexOf(origin);
    return at < 0 ? undefined : list[at];
  }
  return list[origin];
}

/**
 * The value at `path`; `recorded` is the origins the step recorded for its output (an array, or
 * arrays by output key), which `$item` uses to find the paired element of a routed list.
 */
function dig(value: unknown, path: string[], item?: ItemBinding, recorded?: unknown): unknown {
  let current = value;
  let origins = Array.isArray(recorded) ? recorded : undefined;
  let keyed = recorded && typeof recorded === 'object' && !Array.isArray(recorded) ? (recorded as Record<string, unknown>) : undefined;
  for (const key of path) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    if (key === PAIRED_SEGMENT || key === INDEX_SEGMENT) {
      if (Array.isArray(current)) current = key === INDEX_SEGMENT ? current[item?.index ?? 0] : pairedElement(current, item?.origin ?? 0, origins);
      origins = keyed = undefined;
      continue;
    }
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    origins = keyed && Object.hasOwn(keyed, key) && Array.isArray(keyed[key]) ? (keyed[key] as unknown[]) : undefined;
    keyed = undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A parsed template string: plain text, one whole-string template, or text and templates in turn. */
type Compiled = { kind: 'text' } | { kind: 'whole'; path: string[] } | { kind: 'parts'; parts: (string | string[])[] };

const COMPILED = new Map<string, Compiled>();
const COMPILED_MAX = 10_000;

/** Definitions repeat the same strings on every run: each is parsed once (a bounded memo). */
function compile(text: string): Compiled {
  const known = COMPILED.get(text);
  if (known) return known;
  let compiled: Compiled;
  const whole = HAS.test(text) ? WHOLE.exec(text) : null;
  if (!HAS.test(text)) compiled = { kind: 'text' };
  else if (whole) compiled = { kind: 'whole', path: pathOf(whole[1]) };
  else {
    const parts: (string | string[])[] = [];
    let last = 0;
    for (const m of text.matchAll(ANY)) {
      parts.push(text.slice(last, m.index), pathOf(m[1]));
      last = m.index! + m[0].length;
    }
    parts.push(text.slice(last));
    compiled = { kind: 'parts', parts };
  }
  if (COMPILED.size >= COMPILED_MAX) COMPILED.clear();
  COMPILED.set(text, compiled);
  return compiled;
}

function lookupPath(path: string[], scope: TemplateScope): unknown {
  const head = path[0];
  if (head === undefined) return undefined;
  const item = scope.item;
  if (item) {
    if (head === 'item') return dig(item.value, path.slice(1), item);
    if (head === 'item_index' && path.length === 1) return item.index;
    if (head === 'item_origin' && path.length === 1) return item.origin;
  }
  if (scope.stepIds.has(head) && path[1] === 'output') return dig(scope.outputs.get(head), path.slice(2), item, item ? scope.originsOf?.(head) : undefined);
  if (head === 'trigger') return dig(scope.trigger, path.slice(1), item);
  if (Object.prototype.hasOwnProperty.call(scope.variables, head)) return dig(scope.variables[head], path.slice(1), item);
  return undefined;
}

export function lookup(expression: string, scope: TemplateScope): unknown {
  return lookupPath(pathOf(expression), scope);
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function resolveString(text: string, scope: TemplateScope): unknown {
  const compiled = compile(text);
  if (compiled.kind === 'text') return text;
  if (compiled.kind === 'whole') return lookupPath(compiled.path, scope) ?? null;
  let out = '';
  for (const part of compiled.parts) out += typeof part === 'string' ? part : asText(lookupPath(part, scope));
  return out;
}

/** A copy of value with every template resolved (objects and arrays walked; keys are not templated). */
export function resolveTemplates(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') return resolveString(value, scope);
  if (Array.isArray(value)) return value.map((item) => resolveTemplates(item, scope));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = resolveTemplates(item, scope);
    return out;
  }
  return value;
}

/** The step ids a value's templates read (`{{id.output...}}`): a retry invalidates a step when one of them is. */
export function referencedSteps(value: unknown, stepIds: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(ANY)) {
        const [head, second] = pathOf(m[1]);
        if (stepIds.has(head) && second === 'output') found.add(head);
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(value);
  return found;
}
