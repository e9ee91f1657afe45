import type { SandboxDialect } from '../../../kernel/sandbox-contract.ts';

/**
 * How a snippet sees its input, per dialect: the parameter names of the async function the
 * code is the body of, and the JavaScript source (run inside the isolate, before the code) of a
 * function `(input, console) => [arguments]` that builds them. An n8n dialect adds `$json`,
 * `$input` and `$()` here, built from the same input; nothing else changes.
 */

/**
 * n8n's Code node: items are `{json}` wrappers; `$input.all()/first()/last()/item`, `$json` (the
 * current item's, or the first item's when the code runs once for all), `$('Node')` with the
 * same accessors (`.item` is the element paired with the current item), `items`. Built inside
 * the isolate from the JSON input (kernel/sandbox-contract.ts N8nCodeInput).
 */
const N8N_BIND = `(input, console) => {
  const own = (o, k) => o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k);
  const list = (v) => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);
  const wrap = (json) => ({ json: json === null || typeof json !== 'object' ? { value: json } : json });
  const data = input !== null && typeof input === 'object' ? input : {};
  const origin = typeof data.origin === 'number' ? data.origin : 0;
  const accessor = (all, current) => Object.freeze({
    all: () => all, first: () => all[0], last: () => all[all.length - 1],
    item: current, itemMatching: (i) => all[i], params: {},
  });
  const items = list(data.items).map(wrap);
  const current = data.mode === 'each' ? wrap(data.item) : items[0];
  const $input = accessor(items, current);
  const nodes = own(data, 'nodes') && data.nodes !== null && typeof data.nodes === 'object' ? data.nodes : {};
  const $ = (name) => {
    if (!own(nodes, name)) throw new Error('Referenced node "' + name + '" is not available to this code');
    const all = list(nodes[name]).map(wrap);
    return accessor(all, all.length === 1 ? all[0] : all[origin]);
  };
  return [current ? current.json : {}, $input, $, items, console, input];
}`;
export interface Dialect {
  parameters: readonly string[];
  bind: string;
}

export const DIALECTS: Record<SandboxDialect, Dialect> = {
  plain: { parameters: ['input', 'console'], bind: '(input, console) => [input, console]' },
  n8n: { parameters: ['$json', '$input', '$', 'items', 'console', 'input'], bind: N8N_BIND },
};
