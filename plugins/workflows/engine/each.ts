import type { StepDefinition } from '../definitions/validate.ts';
import type { ReceiptRow, RunRow } from '../store/run-types.ts';
import { nowIso } from './clock.ts';
import { runStep, type StepOutcome, type StepRunnerDeps } from './step-runner.ts';
import { resolveTemplates, type TemplateScope } from './templates.ts';
import { originsFrom } from './item-routes.ts';
import { CHECKPOINT_SEPARATOR } from '../../../kernel/nodes/durable.ts';

/**
 * Items. Any step may carry `config.each` (a list, usually a template such as
 * "{{fetch.output.body.items}}"): the step then runs once per element, in order, with
 * `{{item}}`, `{{item_index}}` and `{{item_origin}}` bound in its config, and its output is the
 * list of the elements' outputs. Each element's receipt (`<step>:each.<i>`) commits as it
 * finishes, so a resumed run continues at the first element without one; a step with an
 * uncertain effect commits an in-flight marker per element.
 * The element's origin is its list's recorded origin (engine/item-routes.ts), else its index.
 */
export const EACH_KEY = 'each';
/** `each_flat: true`: an element answering a list gives its elements as items (an n8n HTTP Request answering a JSON array) */
export const EACH_FLAT_KEY = 'each_flat';
export const MAX_EACH_ITEMS = 10_000;
/** key prefix of an element's receipt (a checkpoint-shaped id: `<step>:each.<i>`) */
export const ELEMENT_KEY = 'each.';

/** A failure of the step as a whole: its receipt. */
function failed(step: string, startedAt: string, message: string, code: string, extra: Record<string, unknown> = {}): StepOutcome {
  return {
    receipt: {
      step_id: step, status: 'failed', attempt: 1, input: null, output: null, error: { message, code, ...extra }, taken: null, directive: null,
      uncertain: false, carried_from: null, started_at: startedAt, finished_at: nowIso(), execute_ms: null,
    },
  };
}

export interface EachDeps extends StepRunnerDeps {
  /** committed receipts of this step's elements, by element index */
  elements(storedId: string): Map<number, ReceiptRow>;
  /** commits one element's receipt; false when the run was lost */
  commitElement(receipt: ReceiptRow): Promise<boolean>;
}

const quiet = (): void => undefined;

/** The committed element receipts of a step (stored as `storedId`) among a run's checkpoint-shaped receipts, by element index. */
export function elementReceipts(checkpoints: ReadonlyMap<string, ReceiptRow>, storedId: string): Map<number, ReceiptRow> {
  const prefix = storedId + CHECKPOINT_SEPARATOR + ELEMENT_KEY;
  const out = new Map<number, ReceiptRow>();
  for (const [id, r] of checkpoints) if (id.startsWith(prefix)) out.set(Number(id.slice(prefix.length)), r);
  return out;
}

/** Runs a step once per element of its `config.each`, committing each element's receipt; answers the step's own outcome. */
export async function runEach(
  deps: EachDeps,
  run: RunRow,
  step: StepDefinition,
  storedId: string,
  input: unknown,
  inputs: Record<string, unknown>,
  scope: TemplateScope,
): Promise<StepOutcome | undefined> {
  const startedAt = nowIso();
  const { [EACH_KEY]: each, [EACH_FLAT_KEY]: flat, ...config } = step.config;
  let list: unknown;
  try {
    list = resolveTemplates(each, scope);
  } catch (err) {
    return failed(step.id, startedAt, `config.each templates: ${(err as Error).message}`, 'TEMPLATE_ERROR');
  }
  if (!Array.isArray(list)) return failed(step.id, startedAt, `config.each must be a list, got ${list === null ? 'null' : typeof list}.`, 'BAD_INPUT', { field: 'config.each' });
  if (list.length > MAX_EACH_ITEMS) return failed(step.id, startedAt, `config.each has ${list.length} elements; a step runs for at most ${MAX_EACH_ITEMS}.`, 'BAD_INPUT', { field: 'config.each' });
  const origins = originsFrom(each, scope);
  const done = deps.elements(storedId);
  const elementDeps: StepRunnerDeps = { ...deps, started: quiet };
  deps.started(step.id, step.type);
  const outputs: unknown[] = [];
  /** with each_flat, each output item's origin (its element's) */
  const flatOrigins: number[] = [];
  const add = (output: unknown, i: number): void => {
    if (flat !== true) {
      outputs.push(output);
      return;
    }
    const items = Array.isArray(output) ? output : [output];
    outputs.push(...items);
    for (let n = 0; n < items.length; n++) flatOrigins.push(origins?.[i] ?? i);
  };
  let executeMs = 0;
  for (let i = 0; i < list.length; i++) {
    const previous = done.get(i);
    if (previous?.status === 'completed' || previous?.status === 'reconciled') {
      add(previous.output, i);
      continue;
    }
    const elementId = `${storedId}${CHECKPOINT_SEPARATOR}${ELEMENT_KEY}${i}`;
    const item = { value: list[i], index: i, origin: origins?.[i] ?? i };
    const outcome = await runStep(elementDeps, run, { ...step, id: elementId, config }, input, inputs, { ...scope, item });
    if (!outcome) return undefined;
    const r = outcome.receipt;
    if (r.status === 'completed' && (outcome.pause || outcome.finish || outcome.respond || r.directive?.pause)) {
      return failed(step.id, startedAt, `item ${i}: a step with config.each cannot pause, finish or answer the run per element.`, 'EACH_UNSUPPORTED', { item_index: i });
    }
    if (r.status === 'waiting') return failed(step.id, startedAt, `item ${i}: a step with config.each cannot wait or ask for an approval per element.`, 'EACH_UNSUPPORTED', { item_index: i });
    if (!(await deps.commitElement({ ...r, input: null }))) return undefined;
    if (r.status !== 'completed') {
      const error = (r.error ?? {}) as { message?: string; code?: string };
      return failed(step.id, startedAt, `item ${i}: ${error.message ?? 'failed'}`, error.code ?? 'NODE_ERROR', { item_index: i });
    }
    executeMs += r.execute_ms ?? 0;
    add(r.output, i);
  }
  const directive = flat === true ? { origins: flatOrigins } : origins ? { origins } : null;
  return {
    receipt: {
      step_id: step.id, status: 'completed', attempt: 1, input: null, output: outputs, error: null, taken: step.next, directive,
      uncertain: false, carried_from: null, started_at: startedAt, finished_at: nowIso(), execute_ms: Math.round(executeMs * 1000) / 1000,
    },
  };
}
