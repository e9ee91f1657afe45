import type { ToolSpec } from '../../kernel/models-generate-contract.ts';

/** Checkpoint keys of the agent loop: sortable, and what GET /executions counts (`r0001.model`, `r0001.tool.0`). */
export function modelKey(round: number): string {
  return `r${String(round).padStart(4, '0')}.model`;
}

export function toolKey(round: number, index: number): string {
  return `r${String(round).padStart(4, '0')}.tool.${index}`;
}

/** Where a `propose_plan` call keeps the id of the plan it stored (not counted as a tool call). */
export function planKey(round: number, index: number): string {
  return `r${String(round).padStart(4, '0')}.plan.${index}`;
}

/** A delivery review of the round's final answer (delivery-review.ts). */
export function reviewKey(round: number): string {
  return `r${String(round).padStart(4, '0')}.review`;
}

/** The built-in question tool: the run parks until a person answers (a task waits on its customer). */
export const ASK_HUMAN = 'ask_human';

export const ASK_HUMAN_SPEC: ToolSpec = {
  name: ASK_HUMAN,
  description: 'Ask a person a question when you cannot go on without their answer. The work pauses until they reply; their answer is the result.',
  parameters: { type: 'object', properties: { question: { type: 'string', description: 'The question, self-contained.' } }, required: ['question'], additionalProperties: false },
};
