import { parseExpressionAt } from 'acorn';
import { extensionCalls } from './extensions.ts';

/**
 * n8n expressions (`={{ ... }}`), parsed with acorn and never evaluated. A pure reference
 * becomes a template: `$json.x` (the current item), `$input.item.json.x`, `$input.first()`,
 * `$('Node').item.json.y` (the paired element), `.first()`, `.all()`, `$node["Node"].json.y`,
 * `$vars.name` (a workflow variable). Anything else is *computing*: it moves to a generated
 * `code` step in the n8n dialect (which has `$now`, `$today`, `DateTime`, `$itemIndex`,
 * `$runIndex`, `$workflow`, `$execution.id` and the data transformation functions of
 * extensions.ts), unless it reads what that dialect does not offer (`$env`, `$jmespath`,
 * `$execution.mode`, an unimplemented function, ...), which leaves it unmapped.
 */
export type Segment = string | number;

export type Reference =
  | { root: 'json'; path: Segment[] }
  | { root: 'input'; pick: 'first' | 'all'; path: Segment[] }
  | { root: 'node'; node: string; pick: 'item' | 'first' | 'all'; path: Segment[] }
  | { root: 'vars'; name: string; path: Segment[] };

export type ParsedExpression =
  | { kind: 'reference'; ref: Reference }
  /**
   * nodes: the `$('Node')` names it reads; blocked: identifiers the n8n code dialect does not
   * have; code: the source to run (data transformation functions rewritten); unsupported: the
   * n8n functions it calls that are not implemented; approx: what differs here
   */
  | { kind: 'computing'; source: string; code: string; nodes: string[]; blocked: string[]; unsupported: string[]; approx: string[] }
  | { kind: 'invalid'; message: string };

/** What the n8n code dialect binds; any other `$name` (or n8n's globals) cannot run there. */
const DIALECT_NAMES = new Set(['$json', '$input', '$', 'items', '$now', '$today', '$itemIndex', '$runIndex', '$workflow', '$execution']);
const N8N_GLOBALS = new Set(['$jmespath', '$env', '$vars', '$prevNode', '$node', '$items', '$item', '$parameter', '$position', '$binary', '$secrets', '$evaluateExpression', '$ifEmpty', '$if', '$max', '$min']);
/** The members of `$workflow` and `$execution` the dialect has. */
const MEMBERS: Record<string, Set<string>> = { $workflow: new Set(['id', 'name', 'active']), $execution: new Set(['id']) };
const MEMBER_APPROX: Record<string, string> = {
  '$workflow.name': "$workflow.name is the workflow's name when it was imported",
  '$workflow.active': '$workflow.active is true when the run comes from a binding (a deployment with its trigger), false otherwise',
};

type AstNode = { type: string; [key: string]: unknown };
type Op = { prop: Segment } | { call: string };
type Chain = { base: { ident: string } | { node: string }; ops: Op[] };

function chainOf(node: AstNode): Chain | undefined {
  if (node.type === 'Identifier') return { base: { ident: node.name as string }, ops: [] };
  if (node.type === 'MemberExpression') {
    const inner = chainOf(node.object as AstNode);
    const prop = node.property as AstNode;
    let key: Segment | undefined;
    if (!node.computed && prop.type === 'Identifier') key = prop.name as string;
    else if (node.computed && prop.type === 'Literal' && (typeof prop.value === 'string' || typeof prop.value === 'number')) key = prop.value;
    return inner && key !== undefined ? { base: inner.base, ops: [...inner.ops, { prop: key }] } : undefined;
  }
  if (node.type === 'CallExpression') {
    const callee = node.callee as AstNode;
    const args = node.arguments as AstNode[];
    if (callee.type === 'Identifier' && callee.name === '$' && args.length === 1 && args[0].type === 'Literal' && typeof args[0].value === 'string') return { base: { node: args[0].value }, ops: [] };
    if (callee.type === 'MemberExpression' && !callee.computed && args.length === 0) {
      const inner = chainOf(callee.object as AstNode);
      return inner ? { base: inner.base, ops: [...inner.ops, { call: (callee.property as AstNode).name as string }] } : undefined;
    }
  }
  return undefined;
}

const isProp = (op: Op | undefined, name?: string): op is { prop: Segment } => op !== undefined && 'prop' in op && (name === undefined || op.prop === name);
const isCall = (op: Op | undefined, ...names: string[]): op is { call: string } => op !== undefined && 'call' in op && names.includes(op.call);

/** The data path after `.json` (every op a property), or undefined. */
function jsonPath(ops: Op[]): Segment[] | undefined {
  if (!isProp(ops[0], 'json')) return undefined;
  const rest = ops.slice(1);
  return rest.every((op) => isProp(op)) ? rest.map((op) => (op as { prop: Segment }).prop) : undefined;
}

/** `.item` / `.first()` / `.all()` followed by `.json...` (all alone) on a node or input accessor. */
function pickOf(ops: Op[]): { pick: 'item' | 'first' | 'all'; path: Segment[] } | undefined {
  const [head, ...rest] = ops;
  if (isCall(head, 'all') && rest.length === 0) return { pick: 'all', path: [] };
  const pick = isProp(head, 'item') ? 'item' : isCall(head, 'first') ? 'first' : undefined;
  const path = pick ? jsonPath(rest) : undefined;
  return pick && path ? { pick, path } : undefined;
}

function referenceOf(chain: Chain): Reference | undefined {
  const { base, ops } = chain;
  if ('node' in base) {
    const picked = pickOf(ops);
    return picked ? { root: 'node', node: base.node, ...picked } : undefined;
  }
  if (base.ident === '$json') return ops.every((op) => isProp(op)) ? { root: 'json', path: ops.map((op) => (op as { prop: Segment }).prop) } : undefined;
  if (base.ident === '$input') {
    const picked = pickOf(ops);
    if (!picked) return undefined;
    return picked.pick === 'item' ? { root: 'json', path: picked.path } : { root: 'input', pick: picked.pick, path: picked.path };
  }
  if (base.ident === '$node' && isProp(ops[0]) && typeof ops[0].prop === 'string') {
    const path = jsonPath(ops.slice(1));
    return path ? { root: 'node', node: ops[0].prop, pick: 'item', path } : undefined;
  }
  if (base.ident === '$vars' && isProp(ops[0]) && typeof ops[0].prop === 'string' && ops.every((op) => isProp(op))) {
    return { root: 'vars', name: ops[0].prop, path: ops.slice(1).map((op) => (op as { prop: Segment }).prop) };
  }
  return undefined;
}

/** Every node of the tree (acorn nodes are plain objects). */
function walk(node: unknown, visit: (n: AstNode) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object' && typeof (node as AstNode).type === 'string') {
    visit(node as AstNode);
    for (const [key, value] of Object.entries(node)) if (key !== 'type' && value && typeof value === 'object') walk(value, visit);
  }
}

/**
 * The names a computing expression or a Code node's code reads: `$('Node')` targets,
 * identifiers and members (`$execution.mode`) the dialect lacks, and what differs (approx).
 */
export function namesRead(tree: unknown): { nodes: string[]; blocked: string[]; approx: string[] } {
  const nodes = new Set<string>();
  const blocked = new Set<string>();
  const approx = new Set<string>();
  walk(tree, (n) => {
    if (n.type === 'MemberExpression' && (n.object as AstNode).type === 'Identifier' && Object.hasOwn(MEMBERS, (n.object as AstNode).name as string)) {
      const base = (n.object as AstNode).name as string;
      const prop = n.property as AstNode;
      const key = !n.computed && prop.type === 'Identifier' ? prop.name : n.computed && prop.type === 'Literal' ? prop.value : undefined;
      if (typeof key !== 'string' || !MEMBERS[base].has(key)) blocked.add(typeof key === 'string' ? `${base}.${key}` : `${base}[...]`);
      else if (MEMBER_APPROX[`${base}.${key}`]) approx.add(MEMBER_APPROX[`${base}.${key}`]);
    }
    if (n.type === 'CallExpression') {
      const callee = n.callee as AstNode;
      const args = n.arguments as AstNode[];
      if (callee.type === 'Identifier' && callee.name === '$' && args[0]?.type === 'Literal' && typeof args[0].value === 'string') nodes.add(args[0].value);
    }
    if (n.type === 'Identifier' && typeof n.name === 'string' && (N8N_GLOBALS.has(n.name) || (n.name.startsWith('$') && !DIALECT_NAMES.has(n.name)))) blocked.add(n.name);
  });
  return { nodes: [...nodes], blocked: [...blocked], approx: [...approx] };
}

const MAX_EXPRESSION_CHARS = 10_000;

/** One expression (the text between `{{` and `}}`). */
export function parseExpression(source: string): ParsedExpression {
  const text = source.trim();
  if (text.length > MAX_EXPRESSION_CHARS) return { kind: 'invalid', message: `an expression over ${MAX_EXPRESSION_CHARS} characters` };
  let tree: AstNode;
  try {
    tree = parseExpressionAt(text, 0, { ecmaVersion: 'latest' }) as unknown as AstNode;
  } catch (err) {
    return { kind: 'invalid', message: `does not parse: ${(err as Error).message}` };
  }
  if (text.slice(tree.end as number).replace(/[\s;]/g, '') !== '') return { kind: 'invalid', message: 'does not parse: more than one expression' };
  const chain = chainOf(tree);
  const ref = chain ? referenceOf(chain) : undefined;
  if (ref) return { kind: 'reference', ref };
  return { kind: 'computing', source: text, ...namesRead(tree), ...extensionCalls(tree, text) };
}

/** Whether a Code node's JavaScript parses (as an async function body), and the names it reads. */
export function readCode(code: string): { ok: true; nodes: string[]; blocked: string[]; approx: string[] } | { ok: false; message: string } {
  try {
    const tree = parseExpressionAt(`(async function () {\n${code}\n})`, 0, { ecmaVersion: 'latest' });
    return { ok: true, ...namesRead(tree) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** The parts of an n8n parameter text after its `=`: literal text and `{{ expression }}`s in turn. */
export function splitTemplate(body: string): (string | { expression: string })[] {
  const parts: (string | { expression: string })[] = [];
  let last = 0;
  for (const m of body.matchAll(/\{\{([\s\S]*?)\}\}/g)) {
    parts.push(body.slice(last, m.index), { expression: m[1] });
    last = m.index! + m[0].length;
  }
  parts.push(body.slice(last));
  return parts.filter((p) => p !== '');
}
