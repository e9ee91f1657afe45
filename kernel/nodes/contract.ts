/**
 * What the workflow engine passes to every node type's `execute` action: the step's resolved
 * `config`, the `input` of its single predecessor (or the trigger payload), the `inputs` of all
 * predecessors by step id (merge), and the run `context`. One declaration for every node package.
 */
export const NODE_EXECUTE_PARAMS = {
  config: 'object',
  input: { type: 'any', optional: true },
  inputs: { type: 'object', optional: true },
  context: { type: 'object', optional: true },
} as const;

/** What a node type package declares about itself in `metadata.nodeType` (the workflow engine reads it from the registry). */
export interface NodeTypeDeclaration<S = Record<string, unknown>> {
  type: string;
  version: number;
  category: string;
  title?: string;
  description?: string;
  /** JSON Schema of the step's `config` */
  config_schema: S;
  /** output names; for branching nodes the named branches */
  outputs: string[];
  /** config paths holding step ids of branch targets (`*` steps over arrays and objects); each must also be in `next` */
  branch_targets?: string[];
  /** an entry node (a run starts there); a definition has exactly one */
  entry?: boolean;
  /** never executed (annotations) */
  skip_at_runtime?: boolean;
  /** a loop construct: a cycle through it is allowed */
  loop?: boolean;
  /** true, or true when config[config_key] is one of values: a step in flight when its worker died is reconciled, not repeated */
  uncertain_effect: boolean | { config_key: string; values: string[] };
  /** a durable node: commits its own checkpoints within the step (kernel/nodes/durable.ts) */
  checkpoints?: boolean;
  /** what running the step does outside the run: nothing, something a repeat does not change, or something a repeat does again */
  side_effect?: NodeSideEffect;
  /** the error codes a failed step of this type records, with when (docs/nodes.md lists them) */
  failures?: Record<string, string>;
}

export const NODE_SIDE_EFFECTS = ['none', 'idempotent', 'non_idempotent'] as const;
export type NodeSideEffect = (typeof NODE_SIDE_EFFECTS)[number];

/**
 * The service of a node type whose `execute` needs only its params: named `node.<type>`, the
 * declaration in `metadata.nodeType`, and `execute` taking NODE_EXECUTE_PARAMS.
 */
export function defineNodeType<P>(nodeType: NodeTypeDeclaration, execute: (params: P) => unknown) {
  return {
    name: `node.${nodeType.type}`,
    metadata: { nodeType },
    actions: {
      execute: {
        visibility: 'public',
        params: NODE_EXECUTE_PARAMS,
        handler(ctx: { params: P }) {
          return execute(ctx.params);
        },
      },
    },
  };
}
