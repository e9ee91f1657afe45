import type { DefinitionBody, DefinitionProblem } from '../definitions/validate.ts';
import type { NodeTypeEntry } from '../engine/node-types.ts';
import type { ChatMessage } from '../../../kernel/models-contract.ts';


const RULES = `You design workflows for a workflow engine. A workflow definition is JSON:
{"name": string, "description": string, "trigger_type": "manual"|"webhook"|"schedule"|"event"|"workspace_event", "steps": [Step], "variables": object}
Step: {"id": string matching ^[A-Za-z_][A-Za-z0-9_-]*$, "type": one of the node types below, "name": string, "config": object valid against the type's config_schema, "next": [ids of the steps that follow]}.
Rules a definition must satisfy:
- exactly one entry step (a node type marked entry: true), and every other step is reached from it through "next";
- every id in "next" is the id of a step; no cycle unless it goes through a loop node type;
- a branching step names its branch targets in its config (see branch_targets), and each target is also in its "next";
- templates in config values: "{{trigger}}" (a webhook's {method, headers, query, body}; a manual run's input), "{{stepId.output}}" with paths such as "{{stepId.output.items.0.name}}", "{{varName}}" for a variable. A template that is the whole string yields the raw value.
Answer with one short sentence on what you did, then the WHOLE definition in ONE fenced \`\`\`json block. Never invent node types or config keys.`;

/** What the model is told once: the definition format, its rules, and every loaded node type with its config schema. */
export function systemPrompt(nodeTypes: NodeTypeEntry[]): string {
  const catalog = nodeTypes.map(({ description: d }) => ({
    type: d.type,
    title: d.title,
    description: d.description,
    category: d.category,
    entry: d.entry || undefined,
    outputs: d.outputs,
    branch_targets: d.branch_targets,
    loop: d.loop || undefined,
    config_schema: d.config_schema,
  }));
  return `${RULES}\n\nNode types:\n${JSON.stringify(catalog)}`;
}

/** The request: a new workflow from the prompt, or an edit of the given definition. */
export function requestMessage(prompt: string, current: DefinitionBody | undefined): ChatMessage {
  if (!current) return { role: 'user', content: `Create a workflow: ${prompt}` };
  return { role: 'user', content: `This is the current workflow:\n\`\`\`json\n${JSON.stringify(current, null, 1)}\n\`\`\`\nChange it as follows, keeping the step ids of steps you keep: ${prompt}` };
}

/** A repair round: what was wrong with the last answer. */
export function repairMessage(problems: DefinitionProblem[] | 'no-json'): ChatMessage {
  if (problems === 'no-json') return { role: 'user', content: 'Your answer had no JSON definition. Answer with the whole definition in one fenced ```json block.' };
  const list = problems.slice(0, 50).map((p) => `- ${p.field}${p.step_id ? ` (step ${p.step_id})` : ''}: ${p.message}`).join('\n');
  return { role: 'user', content: `That definition cannot be saved:\n${list}\nAnswer with the corrected whole definition in one fenced \`\`\`json block.` };
}
