import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceBroker } from 'moleculer';
import { callNode, type NodeCallParams, type NodeResult } from './node-call.ts';
import type { Checkpoint } from '../../../kernel/nodes/durable.ts';
import { hasUncertainEffect, type NodeTypeRegistry } from './node-types.ts';
import { resolveTemplates, type TemplateScope } from './templates.ts';
import { nowIso } from './clock.ts';
import { composeOrigins, originsFrom, routeOf } from './item-routes.ts';
import type { StepDefinition } from '../definitions/validate.ts';
import type { EngineProfile } from './profile.ts';
import { OUTPUT_IS_TRIGGER, type Approval, type PauseInfo, type ReceiptRow, type RunRow, type SavedInvocation } from '../store/run-types.ts';

/** What running one step produced: its receipt, and what it asks of the run. */
export interface StepOutcome {
  receipt: ReceiptRow;
  pause?: PauseInfo;
  finish?: NonNullable<NodeResult['finish']>;
  respond?: NonNullable<NodeResult['respond']>;
}

export interface StepRunnerDeps {
  broker: ServiceBroker;
  nodeTypes: NodeTypeRegistry;
  inlineWaitSeconds: number;
  /** commits the in-flight marker of a step with an uncertain effect; false when the run was lost */
  markInFlight(receipt: ReceiptRow): Promise<boolean>;
  /** a step starts (live only) */
  started(stepId: string, type: string): void;
  /** durable nodes: the checkpoints a step committed so far (kernel/nodes/durable.ts) */
  checkpointsOf?(stepId: string): Checkpoint[];
  profile?: EngineProfile;
}

function errorOf(err: unknown, timeout: unknown): { message: string; code: string } {
  const e = err as { message?: string; type?: string; name?: string };
  if (e?.type === 'REQUEST_TIMEOUT' || e?.name === 'RequestTimeoutError') return { message: `the step did not finish within its timeout of ${timeout} s`, code: 'STEP_TIMEOUT' };
  return { message: e?.message ?? String(err), code: e?.name === 'BlockedTargetError' ? 'BLOCKED_TARGET' : (e?.type ?? 'NODE_ERROR') };
}

type ReceiptBase = Pick<ReceiptRow, 'step_id' | 'attempt' | 'input' | 'taken' | 'directive' | 'uncertain' | 'carried_from' | 'started_at'>;

/** The receipt of a step that stopped now: completed unless `fields` say otherwise. */
function done(base: ReceiptBase, fields: Partial<ReceiptRow>): ReceiptRow {
  return { ...base, output: null, error: null, execute_ms: null, finished_at: nowIso(), status: 'completed', ...fields } as ReceiptRow;
}

/**
 * Runs one step: resolves its config against committed data, calls its node type's
 * `execute` (after committing an in-flight marker when the step has an uncertain effect) and
 * turns the answer into a receipt. Never throws for a node failure: that is a failed receipt.
 */
export async function runStep(
  deps: StepRunnerDeps,
  run: RunRow,
  step: StepDefinition,
  input: unknown,
  inputs: Record<string, unknown>,
  scope: TemplateScope,
  /** an approved runtime-approval wait: repeat exactly this invocation, with the approval */
  approved?: { invocation: SavedInvocation; approval: Approval; attempt: number },
): Promise<StepOutcome | undefined> {
  const startedAt = nowIso();
  const attempt = approved?.attempt ?? 1;
  const base: ReceiptBase = { step_id: step.id, attempt, input, taken: null, directive: null, uncertain: false, carried_from: null, started_at: startedAt };
  const entry = deps.nodeTypes.get(step.type);
  if (!entry) return { receipt: done(base, { status: 'failed', error: { message: `node type '${step.type}' is not loaded on any node`, code: 'NODE_TYPE_UNAVAILABLE' } }) };
  if (entry.description.skip_at_runtime) return { receipt: done(base, { status: 'skipped', output: input ?? null, taken: step.next }) };

  const t0 = performance.now();
  let config: Record<string, unknown>;
  try {
    config = approved ? approved.invocation.config : (resolveTemplates(step.config ?? {}, scope) as Record<string, unknown>);
  } catch (err) {
    return { receipt: done(base, { status: 'failed', error: { message: `config templates: ${(err as Error).message}`, code: 'TEMPLATE_ERROR' } }) };
  }
  deps.profile?.add('template', performance.now() - t0);
  const uncertain = hasUncertainEffect(entry.description, config);
  if (uncertain) {
    const marker: ReceiptRow = { ...base, input: null, uncertain: true, status: 'running', output: null, error: null, finished_at: null, execute_ms: null };
    if (!(await deps.markInFlight(marker))) return undefined;
  } else deps.started(step.id, step.type);

  let result: NodeResult;
  let executeMs: number;
  try {
    const context: NodeCallParams['context'] = { run_id: run.id, step_id: step.id, entity_id: run.entity_id, workspace_id: run.workspace_id, workflow_id: run.workflow_id, binding_id: run.binding_id, attempt, ...(approved ? { approval: approved.approval } : {}) };
    if (entry.description.checkpoints) Object.assign(context, { checkpoints: deps.checkpointsOf?.(step.id) ?? [], engine_node: deps.broker.nodeID, owner_id: run.owner_id });
    ({ result, executeMs } = await callNode(deps.broker, entry, { config, input, inputs, context }, config.timeout));
  } catch (err) {
    return { receipt: done(base, { status: 'failed', uncertain, error: errorOf(err, config.timeout) }) };
  }
  deps.profile?.add('execute', executeMs);
  const directive: Record<string, unknown> = {};
  if (result.artifacts) directive.artifacts = result.artifacts;
  if (result.child_runs) directive.child_runs = result.child_runs;
  const route = result.route ? routeOf(result.route, step.next, result.output) : undefined;
  if (route) directive.route = route;
  if (result.origins && typeof result.origins === 'object') directive.origins = composeOrigins(result.origins, originsFrom(step.config?.items, scope));
  const taken = Array.isArray(result.next) ? step.next.filter((n) => result.next!.includes(n)) : step.next;
  const fields = { uncertain, execute_ms: Math.round(executeMs * 1000) / 1000, output: result.output ?? null, taken };

  const question = entry.description.checkpoints ? result.question : undefined;
  if (result.runtime_approval_required || question) {
    const request = result.runtime_approval_required ?? question!;
    const reason = question ? question.text : result.runtime_approval_required!.reason;
    const pause: PauseInfo = {
      step_id: step.id,
      kind: question ? 'question' : 'runtime_approval',
      decision_required: true,
      resume_at: null,
      message: typeof reason === 'string' ? reason.slice(0, 2000) : 'The step needs an approval before it acts.',
      event: null,
      invocation: { config, input, inputs },
      request,
    };
    return { receipt: done(base, { ...fields, output: null, status: 'waiting', taken: null, finished_at: null, directive: { ...directive, pause } }), pause };
  }
  if (result.pause) {
    const p = result.pause;
    if (p.kind === 'timer' && (p.seconds ?? 0) <= deps.inlineWaitSeconds) {
      await sleep((p.seconds ?? 0) * 1000);
      return { receipt: done(base, { ...fields, output: { waited_seconds: p.seconds ?? 0 } }) };
    }
    const pause: PauseInfo = {
      step_id: step.id,
      kind: p.kind,
      decision_required: p.kind === 'approval' || p.decision_required === true,
      resume_at: p.kind === 'timer' ? new Date(Date.now() + (p.seconds ?? 0) * 1000).toISOString() : null,
      message: p.message ?? null,
      event: p.event ?? null,
    };
    return { receipt: done(base, { ...fields, status: 'waiting', taken: null, finished_at: null, directive: { ...directive, pause } }), pause };
  }
  // a step answering the run's trigger itself (an entry step, or a node passing its input on):
  // the output is stored once, on the run
  if (result.output !== null && typeof result.output === 'object' && result.output === run.trigger) directive.output = OUTPUT_IS_TRIGGER;
  if (result.finish) return { receipt: done(base, { ...fields, directive: { ...directive, finish: result.finish } }), finish: result.finish };
  if (result.respond) return { receipt: done(base, { ...fields, directive: { ...directive, respond: true } }), respond: result.respond };
  return { receipt: done(base, { ...fields, directive: Object.keys(directive).length ? directive : null }) };
}
