import type { Context } from 'moleculer';
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { validateJsonSchema, type Schema } from '../json-schema/validate.ts';
import type { NodeTypeDeclaration } from './contract.ts';
import { interruptibleNodeService } from './interruptible.ts';
import { NodeStepError, type NodeRunContext } from './model-step.ts';

/**
 * The logic and data node types (filter, sort, loop, extractfromfile, ...): their service, the
 * step budget that makes them honour `config.timeout` and a cancel, and the step failures they
 * share. The engine passes `config` with its templates resolved, so a value that was a template
 * at save is checked here against the declared schema before the node sees it.
 */

/** config_schema of `timeout` for the nodes defined here (the engine accepts it on any step). */
export const STEP_TIMEOUT_SCHEMA = {
  type: ['number', 'null'],
  exclusiveMinimum: 0,
  maximum: 86400,
  default: null,
  description: 'Seconds the step may take; past it the step fails with STEP_TIMEOUT (null: no outer deadline).',
  examples: [30],
} as const;

/** Step failure codes every node defined here may give; a node's declaration adds its own. */
export const COMMON_STEP_FAILURES: Record<string, string> = {
  BAD_CONFIG: 'a config value (after its templates were resolved) does not fit the schema; the message names the key',
  BAD_INPUT: 'the data the step was given cannot be used (not a list, too many items, ...); the message says why',
  STEP_TIMEOUT: 'the step ran longer than config.timeout',
  STEP_INTERRUPTED: 'the run was cancelled while the step ran',
};

/** Most items a data step takes in one list (a longer list fails the step with BAD_INPUT). */
export const MAX_ITEMS = 100_000;

/**
 * How long a step may still run and whether its run was cancelled. Long loops call `tick()`:
 * every so often it yields to the event loop (so the cancel event can arrive) and `check()`s.
 */
export class StepBudget {
  private ticks = 0;
  private readonly deadline: number;

  constructor(readonly signal: AbortSignal, readonly timeoutSeconds: number | null, private readonly now: () => number = performance.now.bind(performance)) {
    this.deadline = timeoutSeconds ? this.now() + timeoutSeconds * 1000 : Infinity;
  }

  check(): void {
    if (this.signal.aborted) throw this.signal.reason instanceof NodeStepError ? this.signal.reason : new NodeStepError('The step was interrupted.', 'STEP_INTERRUPTED');
    if (this.now() > this.deadline) throw new NodeStepError(`The step did not finish within its timeout of ${this.timeoutSeconds} s.`, 'STEP_TIMEOUT');
  }

  /** Counts one unit of work; every `every` units it yields to the event loop and checks the budget. */
  async tick(every = 512): Promise<void> {
    if (++this.ticks % every !== 0) return;
    await yieldToEvents();
    this.check();
  }
}

/** The budget of a step: its run's cancel (`signal`) and `config.timeout` when that is a positive number. */
export function budgetOf(signal: AbortSignal, config: unknown): StepBudget {
  const timeout = (config as { timeout?: unknown } | null)?.timeout;
  return new StepBudget(signal, typeof timeout === 'number' && timeout > 0 ? timeout : null);
}

/** What a data node's `execute` gets. */
export interface DataNodeParams<C> {
  config: C;
  input: unknown;
  inputs: Record<string, unknown>;
  context: Partial<NodeRunContext> & { binding_id?: string | null; workflow_id?: string | null };
}

export type DataNodeExecute<C> = (params: DataNodeParams<C>, budget: StepBudget, ctx: Context) => unknown;

/** A resolved config checked against the declared schema: the first problem is the step's failure. */
export function checkResolvedConfig(schema: Schema, config: unknown): void {
  const problems = validateJsonSchema(schema, config, '', { templates: false });
  if (problems.length) {
    const p = problems[0];
    throw new NodeStepError(`config${p.path ? `.${p.path}` : ''} ${p.message}`, 'BAD_CONFIG', { problems });
  }
}

/**
 * The service of a logic or data node type: `node.<type>` with the declaration; `execute`
 * checks the resolved config, gives the node a StepBudget (config.timeout and the run's cancel,
 * `workflows.run.interrupt`) and turns a NodeStepError into the step's failure (its type is the
 * receipt's error code).
 */
export function defineDataNodeType<C>(nodeType: NodeTypeDeclaration, execute: DataNodeExecute<C>) {
  const schema = nodeType.config_schema as Schema;
  type Params = { config: C; input?: unknown; inputs?: Record<string, unknown>; context?: DataNodeParams<C>['context'] };
  return interruptibleNodeService<Params>(
    nodeType,
    (params) => params.context?.run_id ?? '',
    async (ctx, signal) => {
      const { config, input, inputs, context } = ctx.params;
      checkResolvedConfig(schema, config);
      const budget = budgetOf(signal, config);
      return execute({ config, input: input ?? null, inputs: inputs ?? {}, context: context ?? {} }, budget, ctx);
    },
  );
}

/**
 * The list a data step works on: `config.items` when given (usually a template such as
 * "{{fetch.output.body.results}}"), else (missing or null) the step's input. Anything but an
 * array, or one over MAX_ITEMS, fails the step with BAD_INPUT.
 */
export function itemsOf(configured: unknown, input: unknown): unknown[] {
  const given = configured !== undefined && configured !== null;
  const source = given ? configured : input;
  const where = given ? 'config.items' : "the step's input (no config.items given)";
  if (!Array.isArray(source)) throw new NodeStepError(`${where} must be an array, got ${source === null ? 'null' : typeof source}.`, 'BAD_INPUT');
  if (source.length > MAX_ITEMS) throw new NodeStepError(`${where} has ${source.length} items; a step takes at most ${MAX_ITEMS}.`, 'BAD_INPUT');
  return source;
}

/** config_schema of `items`, shared by the list nodes. */
export const ITEMS_SCHEMA = {
  type: ['array', 'null'],
  default: null,
  description: "The list to work on, usually a template such as \"{{fetch.output.body.results}}\" (null: the step's input, which must then be a list).",
  examples: ['{{fetch.output.body.items}}'],
} as const;
