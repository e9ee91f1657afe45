import { DateTime, Duration, Interval } from 'luxon';
import { N8N_EXTEND_FUNCTION, N8N_EXTENSION_METHODS } from '../../../../kernel/sandbox-contract.ts';

/**
 * n8n's data transformation functions in a computing expression (`$json.email.isEmpty()`),
 * found on acorn's tree, never evaluated. A call of one the n8n dialect implements
 * (N8N_EXTENSION_METHODS) is rewritten into `$__ext(value, 'name', [args])`, which picks the
 * function by the value's type when the code step runs, as n8n does; a call of one it does not
 * implement makes the expression unmapped, naming it. A name that is also a native method of
 * some value (`.includes()`, `.split()`, `.join()`, `.keys()`) is never reported: the call
 * may be the native one.
 */
export const IMPLEMENTED = new Set<string>(Object.values(N8N_EXTENSION_METHODS).flat());

/** n8n's data transformation functions the dialect does not implement (strings, arrays, objects, dates). */
export const NOT_IMPLEMENTED = new Set([
  'base64Encode', 'base64Decode', 'extractDomain', 'extractUrl', 'extractUrlPath', 'hash', 'isDomain', 'isUrl', 'isNumeric', 'quote', 'removeMarkdown',
  'replaceSpecialChars', 'toDate', 'toSentenceCase', 'toSnakeCase', 'toTitleCase', 'urlDecode', 'urlEncode',
  'compact', 'pluck', 'smartJoin', 'renameKeys', 'keepFieldsContaining', 'removeFieldsContaining',
  'diffTo', 'diffToNow',
]);

/** Every method name of JavaScript's own values and of Luxon's, on this process (the same engine as the sandbox's). */
const NATIVE = new Set<string>(
  [String, Array, Number, Boolean, Object, Date, Function, Promise, Map, Set, RegExp, DateTime, Duration, Interval].flatMap((c) => [
    ...Object.getOwnPropertyNames(c.prototype),
    ...Object.getOwnPropertyNames(c),
  ]),
);

/** Receivers never rewritten: JavaScript's and Luxon's namespaces, and the dialect's item accessors. */
const NAMESPACES = new Set(['Math', 'Object', 'JSON', 'Number', 'String', 'Array', 'Boolean', 'Date', 'DateTime', 'Duration', 'Interval', 'Intl', 'Promise', 'Reflect', 'console', '$input']);

type AstNode = { type: string; start: number; end: number; [key: string]: unknown };

export interface ExtensionCalls {
  /** the expression with every implemented function's call rewritten */
  code: string;
  /** names of n8n functions it calls that are not implemented here */
  unsupported: string[];
}

const isNode = (v: unknown): v is AstNode => !!v && typeof v === 'object' && typeof (v as AstNode).type === 'string';

function methodName(call: AstNode): string | undefined {
  const callee = call.callee as AstNode;
  if (callee.type !== 'MemberExpression' || callee.computed) return undefined;
  const prop = callee.property as AstNode;
  return prop.type === 'Identifier' ? (prop.name as string) : undefined;
}

/** Whether a call's receiver is a namespace or an accessor (`$input`, `$('Node')`). */
function accessorReceiver(object: AstNode): boolean {
  if (object.type === 'Identifier') return NAMESPACES.has(object.name as string);
  const callee = object.type === 'CallExpression' ? (object.callee as AstNode) : undefined;
  return callee?.type === 'Identifier' && callee.name === '$';
}

/** Whether a chain of members and calls holds an optional link (`a?.b`). */
function optionalChain(node: AstNode): boolean {
  let n: AstNode | undefined = node;
  while (n && (n.type === 'MemberExpression' || n.type === 'CallExpression')) {
    if (n.optional === true) return true;
    n = (n.type === 'MemberExpression' ? n.object : n.callee) as AstNode;
  }
  return false;
}

/** The calls to rewrite and the unimplemented names of a parsed expression (`text` is its source). */
export function extensionCalls(tree: unknown, text: string): ExtensionCalls {
  const rewrites: AstNode[] = [];
  const unsupported = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isNode(node)) return;
    if (node.type === 'CallExpression') {
      const name = methodName(node);
      const object = name ? ((node.callee as AstNode).object as AstNode) : undefined;
      if (name && object && object.type !== 'Super' && !accessorReceiver(object)) {
        if (IMPLEMENTED.has(name)) rewrites.push(node);
        else if (NOT_IMPLEMENTED.has(name) && !NATIVE.has(name)) unsupported.add(name);
      }
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'type' && value && typeof value === 'object') visit(value);
  };
  visit(tree);
  // outermost first: a call starting where another starts (`a.b().c()`) holds it when it ends later
  rewrites.sort((a, b) => a.start - b.start || b.end - a.end);
  /** The source of [start, end) with every rewritten call inside it rewritten: the outermost ones here, and the calls within them in turn. */
  const render = (start: number, end: number): string => {
    let out = '';
    let at = start;
    for (const call of rewrites) {
      if (call.start < at || call.end > end) continue;
      out += text.slice(at, call.start) + one(call);
      at = call.end;
    }
    return out + text.slice(at, end);
  };
  /** One operand of the rewritten call (a comma expression keeps the parentheses it had). */
  const part = (node: AstNode): string => (node.type === 'SequenceExpression' ? `(${render(node.start, node.end)})` : render(node.start, node.end));
  const one = (call: AstNode): string => {
    const callee = call.callee as AstNode;
    const args = (call.arguments as AstNode[]).map(part).join(', ');
    const optional = call.optional === true || optionalChain(callee);
    return `${N8N_EXTEND_FUNCTION}(${part(callee.object as AstNode)}, ${JSON.stringify(methodName(call))}, [${args}]${optional ? ', true' : ''})`;
  };
  return { code: rewrites.length ? render(0, text.length) : text, unsupported: [...unsupported] };
}
