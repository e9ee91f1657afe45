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
