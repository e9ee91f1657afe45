import type { ModelMessage, ToolResultPart, UserContent } from 'ai';
import type { FilePart, GenerateMessage } from '../../../kernel/models-generate-contract.ts';
import type { FileContent } from './files.ts';

type ReadFile = (part: FilePart, field: string) => Promise<FileContent>;

/**
 * The contract's messages as AI SDK model messages: user text and files, assistant text with
 * the tool calls it made, and tool results (consecutive `tool` messages become one tool message,
 * as every provider wants the results of one turn together).
 */
export async function toModelMessages(messages: GenerateMessage[], readFile: ReadFile): Promise<ModelMessage[]> {
  const out: ModelMessage[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === 'user') {
      if (typeof m.content === 'string') {
        out.push({ role: 'user', content: m.content });
        continue;
      }
      const content: UserContent = [];
      for (const [j, part] of m.content.entries()) content.push(part.type === 'text' ? { type: 'text', text: part.text } : await readFile(part, `messages[${i}].content[${j}]`));
      out.push({ role: 'user', content });
    } else if (m.role === 'assistant') {
      if (!m.tool_calls?.length) {
        out.push({ role: 'assistant', content: m.content });
        continue;
      }
      out.push({
        role: 'assistant',
        content: [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...m.tool_calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.arguments ?? {} })),
        ],
      });
    } else {
      const result: ToolResultPart = { type: 'tool-result', toolCallId: m.tool_call_id, toolName: m.tool_name, output: toolOutput(m.content, m.is_error === true) };
      const last = out.at(-1);
      if (last?.role === 'tool') last.content.push(result);
      else out.push({ role: 'tool', content: [result] });
    }
  }
  return out;
}

function toolOutput(content: unknown, isError: boolean): ToolResultPart['output'] {
  if (typeof content === 'string') return isError ? { type: 'error-text', value: content } : { type: 'text', value: content };
  const value = (content ?? null) as never;
  return isError ? { type: 'error-json', value } : { type: 'json', value };
}
