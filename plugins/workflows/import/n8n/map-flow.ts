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
  if (record(ctx.p.options).reset === true) m.problems.push('a Loop Over Items that resets on each run');
  m.place = (config, targets) => {
    config.branches = { body: targets[1] ?? [], ...(targets[0]?.length ? { done: targets[0] } : {}) };
  };
  return m;
}

const UNITS: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };

export function wait(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const m = base(ctx, 'wait', {}, passThrough(ctx));
  const resume = str(p.resume) ?? 'timeInterval';
  if (resume === 'webhook' || resume === 'form') {
    m.config = { wait_type: 'event' };
    m.approx.push(`resumed by POST /runs/{id}/resume (with input), not by n8n's ${resume} URL`);
  } else if (resume === 'timeInterval') {
    const warnings: ImportWarning[] = [];
    m.config = { wait_type: 'timer', seconds: timerSeconds(p.amount ?? 1, own(UNITS, p.unit ?? 'hours') ?? 3600, ctx.node.name, warnings) };
    m.approx.push(...warnings.map((w) => w.message));
  } else m.problems.push(`a Wait until ${resume} has no equivalent (a time interval or a resume only)`);
  return m;
}

/** Respond to Webhook: the body as n8n builds it; the node passes its items on. */
export function respond(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const options = record(p.options);
  const warnings: ImportWarning[] = [];
  const tr = ctx.translator('first');
  const m = base(ctx, 'respond', { status: statusOr200(options.responseCode, ctx.node.name, warnings) }, passThrough(ctx));
  m.approx.push(...warnings.map((w) => w.message));
  const headers = list(record(options.responseHeaders).entries).map(record).filter((h) => typeof h.name === 'string');
  if (headers.length) m.config.headers = Object.fromEntries(headers.map((h) => [h.name, tr.value(h.value ?? '')]));
  const input = ctx.input;
  switch (str(p.respondWith) ?? 'firstIncomingItem') {
    case 'firstIncomingItem':
      m.config.body = input ? `{{${input.single ? input.path : `${input.path}[0]`}}}` : null;
      break;
    case 'allIncomingItems':
      m.config.body = itemsValue(input);
      break;
    case 'json':
      m.config.body = jsonBody(p.responseBody ?? '', tr);
      break;
    case 'text':
      m.config.body = tr.value(p.responseBody ?? '');
      break;
    case 'noData':
      break;
    case 'redirect':
      m.config.status = 307;
      m.config.headers = { ...(m.config.headers as object), Location: tr.value(p.redirectURL ?? '') };
      break;
    default:
      m.problems.push(`responding with ${str(p.respondWith)} has no equivalent`);
  }
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
