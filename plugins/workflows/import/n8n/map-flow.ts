import { list, own, record, statusOr200, str, timerSeconds, type ImportWarning } from '../graph.ts';
import { readConditions } from './conditions.ts';
import type { NodeCtx, NodeMapping } from './context.ts';
import { jsonBody } from './json-body.ts';
import { itemsValue, type ItemsRef } from './translate.ts';
import { scheduleSummary } from './settings.ts';

/**
 * n8n's trigger and flow nodes: Manual, Schedule and Webhook triggers, IF, Loop Over Items,
 * Wait, Respond to Webhook, No Operation, Sticky Note, Stop and Error. IF uses the
 * item mode of condition (Switch: map-switch.ts, Merge: map-merge.ts); nodes that pass their items on (Wait, Respond, No
 * Operation) say their items are their input's.
 */
const base = (ctx: NodeCtx, type: string, config: Record<string, unknown>, items: NodeMapping['items']): NodeMapping => ({ type, config, items, approx: [], problems: [] });
const passThrough = (ctx: NodeCtx) => (): ItemsRef | undefined => ctx.input;
const single = (ctx: NodeCtx) => (): ItemsRef => ({ path: `${ctx.id}.output`, single: true });

export function manualTrigger(ctx: NodeCtx): NodeMapping {
  return base(ctx, 'trigger', {}, single(ctx));
}

export function scheduleTrigger(ctx: NodeCtx): NodeMapping {
  const m = base(ctx, 'trigger', { description: 'Imported n8n schedule trigger' }, single(ctx));
  const rule = scheduleSummary(ctx.p);
  m.approx.push(`the schedule is set on a binding (trigger schedule${rule ? `; n8n's rule: ${rule}` : ''}); the item is the run input, not n8n's timestamp fields`);
  return m;
}

export function webhook(ctx: NodeCtx): NodeMapping {
  const m = base(ctx, 'webhook', {}, single(ctx));
  m.approx.push("the item is the request {method, headers, query, body}: n8n's params, webhookUrl and executionMode are absent, and the URL is the binding's");
  if (ctx.p.responseMode === 'lastNode') m.approx.push("n8n answered with the last node's data; here the answer is 202 unless a respond step answers");
  return m;
}

export function ifNode(ctx: NodeCtx): NodeMapping {
  const tr = ctx.translator('first');
  const m = base(ctx, 'condition', {}, (o) => (o <= 1 ? { path: `${ctx.id}.output.${o === 0 ? 'true' : 'false'}`, single: false } : undefined));
  const read = readConditions(ctx.p.conditions, ctx.p.combineOperation, tr, m.approx, record(ctx.p.options).ignoreCase !== true);
  m.problems = tr.problems;
  if (read) m.config = { items: itemsValue(ctx.input), conditions: read.conditions, combine: read.combine };
  m.place = (config, targets) => {
    config.branches = { true: targets[0] ?? [], false: targets[1] ?? [] };
  };
  return m;
}

/** Loop Over Items (Split In Batches v3): output 0 done (every item that came back), output 1 the batch. */
export function loop(ctx: NodeCtx): NodeMapping {
  const m = base(ctx, 'loop', { items: itemsValue(ctx.input), batch_size: typeof ctx.p.batchSize === 'number' ? ctx.p.batchSize : 1 }, (o) =>
    o === 0 ? { path: `${ctx.id}.output.collected`, single: false } : o === 1 ? { path: `${ctx.id}.output.items`, single: false } : undefined,
  );
  if (ctx.version < 3) m.problems.push('Split In Batches before version 3 (its loop ends on an IF reading noItemsLeft): re-add it as Loop Over Items');
  const reset = record(ctx.p.options).reset;
  if (reset === true || (typeof reset === 'string' && reset.startsWith('=')))
    m.problems.push(
      "a Loop Over Items with reset: n8n starts it over with whatever reaches it (the items its body returns, until none come back, or each outer iteration's items when it sits in another loop); a loop here cuts one fixed list into batches and loops do not nest: run the inner loop as a sub-workflow (foreach_subworkflow)",
    );
  m.place = (config, targets) => {
    config.branches = { body: targets[1] ?? [], ...(targets[0]?.length ? { done: targets[0] } : {}) };
  };
  return m;
}

const UNITS: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };

/** Wait: a time interval, until a date-time (a timer), or until resumed (webhook, form). */
export function wait(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const m = base(ctx, 'wait', {}, passThrough(ctx));
  const resume = str(p.resume) ?? 'timeInterval';
  if (resume === 'webhook' || resume === 'form') {
    m.config = { wait_type: 'event' };
    // n8n's Wait gives the resume call's data as its one item; here the resume's input (output.input)
    m.items = () => ({ path: `${ctx.id}.output.input`, single: true });
    const what = resume === 'webhook' ? "n8n's resume URL ($execution.resumeUrl) and the item the call made ({headers, params, query, body})" : "the form n8n served and the item of its fields";
    m.approx.push(`resumed by POST /runs/{id}/resume with an input, which is the one item after the wait: not by ${what}`);
    const limit = record(p.options).limitWaitTime ?? p.limitWaitTime;
    if (limit === true) m.approx.push('the wait has no time limit here (n8n went on with its input items when the limit passed)');
  } else if (resume === 'timeInterval') {
    const warnings: ImportWarning[] = [];
    m.config = { wait_type: 'timer', seconds: timerSeconds(p.amount ?? 1, own(UNITS, p.unit ?? 'hours') ?? 3600, ctx.node.name, warnings) };
    m.approx.push(...warnings.map((w) => w.message));
  } else if (resume === 'specificTime') {
    const tr = ctx.translator('first');
    const until = tr.value(p.dateTime ?? '');
    if (typeof until !== 'string' || until === '') m.problems.push('a Wait until a date-time without one');
    else m.config = { wait_type: 'timer', until, zone: ctx.zone };
    m.problems.push(...tr.problems);
  } else m.problems.push(`a Wait resumed on '${resume}' has no equivalent (a time interval, a date-time, a webhook or form resume)`);
  return m;
}

/** `responseKey` (a dot path) wrapping a body, as n8n nests it. */
function underKey(key: unknown, body: unknown): unknown {
  if (typeof key !== 'string' || key === '') return body;
  return key.split('.').reduceRight<unknown>((inner, part) => ({ [part]: inner }), body);
}

/** Respond to Webhook: the body as n8n builds it; the node passes its items on. */
export function respond(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const options = record(p.options);
  const warnings: ImportWarning[] = [];
  const tr = ctx.translator('first');
  const m = base(ctx, 'respond', { status: statusOr200(options.responseCode, ctx.node.name, warnings) }, passThrough(ctx));
  m.approx.push(...warnings.map((w) => w.message));
  const entries = list(record(options.responseHeaders).entries).map(record).filter((h) => typeof h.name === 'string');
  const headers: Record<string, unknown> = Object.fromEntries(entries.map((h) => [h.name, tr.value(h.value ?? '')]));
  const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  const input = ctx.input;
  const respondWith = str(p.respondWith) ?? 'firstIncomingItem';
  switch (respondWith) {
    case 'firstIncomingItem':
      m.config.body = underKey(options.responseKey, input ? `{{${input.single ? input.path : `${input.path}[0]`}}}` : {});
      break;
    case 'allIncomingItems':
      m.config.body = underKey(options.responseKey, itemsValue(input));
      break;
    case 'json':
      m.config.body = jsonBody(p.responseBody ?? '', tr);
      break;
    case 'text':
      // n8n sends text as Express does a string: text/html unless a header says otherwise
      m.config.body = tr.value(p.responseBody ?? '');
      if (!hasType) headers['Content-Type'] = 'text/html; charset=utf-8';
      break;
    case 'noData':
      m.config.body = '';
      if (!hasType) headers['Content-Type'] = 'text/plain; charset=utf-8';
      break;
    case 'redirect':
      m.config.status = 307;
      headers.Location = tr.value(p.redirectURL ?? '');
      break;
    case 'binary':
      m.problems.push('responding with binary data: items here carry no binary data (files are artifacts), so there is nothing to send');
      break;
    case 'jwt':
      m.problems.push("responding with a JWT: it is signed with an n8n credential, which is never imported, and no step here signs tokens");
      break;
    default:
      m.problems.push(`responding with '${respondWith}' has no equivalent`);
  }
  if (Object.keys(headers).length) m.config.headers = headers;
  m.problems.push(...tr.problems);
  return m;
}

export function noOp(ctx: NodeCtx): NodeMapping {
  return base(ctx, 'note', { text: `Imported from n8n: '${ctx.node.name}' (No Operation) passes its items on.` }, passThrough(ctx));
}

export function stickyNote(ctx: NodeCtx): NodeMapping {
  return { ...base(ctx, 'note', { text: (str(ctx.p.content) ?? '').slice(0, 20000) }, () => undefined), detached: true };
}

export function stopAndError(ctx: NodeCtx): NodeMapping {
  const tr = ctx.translator('first');
  const m = base(ctx, 'stop', { fail: true, message: String(tr.value(ctx.p.errorMessage ?? 'Stopped') || 'Stopped').slice(0, 2000) }, () => undefined);
  m.problems.push(...tr.problems);
  return m;
}
