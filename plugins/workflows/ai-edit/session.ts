import type { Readable } from 'node:stream';
import type { DefinitionBody, DefinitionProblem } from '../definitions/validate.ts';
import { changesFrom } from './changes.ts';
import { extractJsonObject } from './extract.ts';
import { readChatStream, type ChatMessage } from '../../../kernel/models-contract.ts';
import { repairMessage, requestMessage } from './prompt.ts';

/** The SSE events of `POST /ai-edit`, in order (documented in the README). */
export type AiEditEvent =
  | { type: 'ai.started'; data: { mode: 'generate' | 'edit'; base: { workflow_id: string; version: number } | null; max_rounds: number } }
  | { type: 'ai.delta'; data: { round: number; text: string } }
  | { type: 'ai.round'; data: { round: number; valid: false; problems: DefinitionProblem[] } }
  | { type: 'ai.proposal'; data: Proposal }
  | { type: 'ai.error'; data: { status: number; code: string; title: string; detail: string } };

export interface Proposal {
  /** the definition as the model proposed it (normalised when its shape is sound); null when it never wrote one */
  definition: Record<string, unknown> | null;
  /** true when a save would accept it as it is */
  valid: boolean;
  problems: DefinitionProblem[];
  changes: { added: string[]; removed: string[]; changed: string[] };
  rounds: number;
  model: string | null;
  usage: { input_tokens: number; output_tokens: number };
}

export interface AiEditDeps {
  /** opens one model call (an NDJSON stream of models.chatStream) */
  openModel(messages: ChatMessage[]): Promise<Readable>;
  /** why the draft could not be saved (empty: it could), with its normalised body when its shape is sound */
  check(draft: Record<string, unknown>): { body?: DefinitionBody; problems: DefinitionProblem[] };
  emit(event: AiEditEvent): void;
  /** true once the client went away: no further model call is made */
  closed(): boolean;
}

export const MAX_ROUNDS = 3;

/**
 * Asks the model for a definition, checks it like a save, and gives the model the problems
 * back until it is valid or MAX_ROUNDS answers were checked. Stores nothing: the last draft is
 * proposed with `valid` and its problems, for the editor to show and the user to save.
 */
export async function runAiEdit(deps: AiEditDeps, request: { prompt: string; base?: DefinitionBody; baseRef?: { workflow_id: string; version: number } }): Promise<void> {
  deps.emit({ type: 'ai.started', data: { mode: request.base ? 'edit' : 'generate', base: request.baseRef ?? null, max_rounds: MAX_ROUNDS } });
  const messages: ChatMessage[] = [requestMessage(request.prompt, request.base)];
  const usage = { input_tokens: 0, output_tokens: 0 };
  let model: string | null = null;
  let last: { definition: Record<string, unknown> | null; problems: DefinitionProblem[] } = { definition: null, problems: [] };
  for (let round = 1; round <= MAX_ROUNDS && !deps.closed(); round++) {
    let text = '';
    for await (const line of readChatStream(await deps.openModel(messages))) {
      if (line.type === 'delta') {
        text += line.text;
        deps.emit({ type: 'ai.delta', data: { round, text: line.text } });
      } else if (line.type === 'done') {
        text = line.text;
        model = line.model;
        usage.input_tokens += line.usage.input_tokens;
        usage.output_tokens += line.usage.output_tokens;
      } else {
        deps.emit({ type: 'ai.error', data: { status: line.status, code: line.code, title: 'The model provider call failed', detail: line.message } });
        return;
      }
    }
    const draft = extractJsonObject(text);
    const checked = draft ? deps.check(draft) : undefined;
    if (draft && checked) last = { definition: (checked.body as Record<string, unknown> | undefined) ?? draft, problems: checked.problems };
    else last = { definition: last.definition, problems: [{ field: 'definition', message: 'The model answered without a JSON definition.', type: 'aiNoDefinition' }] };
    if (checked && checked.problems.length === 0) break;
    if (round === MAX_ROUNDS) break;
    deps.emit({ type: 'ai.round', data: { round, valid: false, problems: last.problems } });
    messages.push({ role: 'assistant', content: text }, repairMessage(draft ? last.problems : 'no-json'));
  }
  const steps = Array.isArray(last.definition?.steps) ? (last.definition!.steps as DefinitionBody['steps']).filter((s) => s && typeof s.id === 'string') : [];
  deps.emit({
    type: 'ai.proposal',
    data: {
      definition: last.definition,
      valid: last.definition !== null && last.problems.length === 0,
      problems: last.problems,
      changes: changesFrom(request.base, { steps }),
      rounds: messages.filter((m) => m.role === 'user').length,
      model,
      usage,
    },
  });
}
