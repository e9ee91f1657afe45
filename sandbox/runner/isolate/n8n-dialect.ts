import { N8N_EXTEND_FUNCTION } from '../../../kernel/sandbox-contract.ts';
import { LUXON_GLOBAL } from './luxon.ts';
import { N8N_EXTENSIONS_SOURCE } from './n8n-extensions.ts';

/** The parameters of the async function an n8n dialect snippet is the body of. */
export const N8N_PARAMETERS = [
  '$json', '$input', '$', 'items', 'console', 'input',
  '$now', '$today', 'DateTime', 'Duration', 'Interval', '$itemIndex', '$runIndex', '$workflow', '$execution', N8N_EXTEND_FUNCTION,
] as const;

/**
 * n8n's Code node and expressions: items are `{json}` wrappers; `$input.all()/first()/last()/item`,
 * `$json` (the current item's, or the first item's when the code runs once for all), `$('Node')`
 * with the same accessors (`.item` is the element paired with the current item), `items`;
 * Luxon's `DateTime`, `Duration`, `Interval` (luxon.ts; its default zone is the input's `zone`,
 * n8n's workflow time zone, UTC when absent), `$now` and `$today` (the start of today) in that
 * zone; `$itemIndex` (the current item's index, 0 when the code runs once), `$runIndex`,
 * `$workflow` {id, name, active} and `$execution` {id} from the input; and the dispatcher of
 * n8n's data transformation functions (n8n-extensions.ts). Built inside the isolate from the
 * JSON input (kernel/sandbox-contract.ts N8nCodeInput); an unknown zone fails the run.
 */
export const N8N_BIND = `(input, console) => {
  const luxon = globalThis.${LUXON_GLOBAL};
  delete globalThis.${LUXON_GLOBAL};
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
  const { DateTime, Duration, Interval, Settings } = luxon;
  const zone = typeof data.zone === 'string' && data.zone ? data.zone : 'UTC';
  if (!DateTime.now().setZone(zone).isValid) throw new RangeError('The time zone "' + zone + '" is not known');
  Settings.defaultZone = zone;
  const $now = DateTime.now();
  const text = (v) => (typeof v === 'string' ? v : null);
  const workflow = own(data, 'workflow') ? data.workflow : {};
  const execution = own(data, 'execution') ? data.execution : {};
  return [
    current ? current.json : {}, $input, $, items, console, input,
    $now, $now.startOf('day'), DateTime, Duration, Interval,
    typeof data.index === 'number' ? data.index : 0, typeof data.run_index === 'number' ? data.run_index : 0,
    Object.freeze({ id: text(own(workflow, 'id') ? workflow.id : null), name: text(own(workflow, 'name') ? workflow.name : null), active: own(workflow, 'active') && workflow.active === true }),
    Object.freeze({ id: text(own(execution, 'id') ? execution.id : null) }),
    (${N8N_EXTENSIONS_SOURCE})(DateTime),
  ];
}`;
