import type { Readable } from 'node:stream';
import type { DefinitionBody, DefinitionProblem } from '../definitions/validate.ts';
import { changesFrom } from './changes.ts';
import { extractJsonObject } from './extract.ts';
import { readChatStream, type ChatMessage } from '../../../kernel/models-contract.ts';
import { repairMessage } from './prompt.ts';

/** The SSE events of `POST /ai-edit`, in order (documented in the README). */
export type AiEditEvent =
  | { type: 'ai.started'; data: { mode: 'generate' | 'edit'; base: { workflow_id: string; version: number } | null; max_rounds: number } }
  | { type: 'ai.delta'; data: { round: number; text: string } }
  | { type: 'ai.round'; data: { round: number; valid: false; problems: DefinitionProblem[] } }
  | { type: 'ai.proposal'; data: Proposal }
  | { type: 'ai.error'; data: { status: number; code: string; title: string; detail: string } };

interface Proposal {
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
  /** opens a repair round's model call (an NDJSON stream of models.chatStream) */
  openModel(messages: ChatMessage[]): Promise<Readable>;
  /** why the draft could not be saved (empty: it could), with its normalised body when its shape is sound */
  check(draft: Record<string, unknown>): { body?: DefinitionBody; problems: DefinitionProblem[] };
  emit(event: AiEditEvent): void;
  /** true once the client went away: no further model call is read */
  closed(): boolean;
}

export const MAX_ROUNDS = 3;

const NO_DEFINITION: DefinitionProblem = { field: 'definition', message: 'The model answered without a JSON definition.', type: 'aiNoDefinition' };

/**
 * Reads the model's answer to `request` (`first`, its call already opened), checks it like a
 * save, and gives the model the problems back until it is valid or MAX_ROUNDS answers were
 * checked. Stores nothing: the last definition the model wrote is proposed with `valid` and its
 * problems, for the editor to show and the user to save. A client gone (`closed`) ends it quietly.
 */
export async function runAiEdit(
  deps: AiEditDeps,
  request: { message: ChatMessage; first: Readable; base?: DefinitionBody; baseRef?: { workflow_id: string; version: number } },
): Promise<void> {
  deps.emit({ type: 'ai.started', data: { mode: request.base ? 'edit' : 'generate', base: request.baseRef ?? null, max_rounds: MAX_ROUNDS } });
  const messages: ChatMessage[] = [request.message];
  const usage = { input_tokens: 0, output_tokens: 0 };
  let model: string | null = null;
  /** the last definition the model wrote, with its own problems */
  let last: { definition: Record<string, unknown>; problems: DefinitionProblem[] } | undefined;
  /** the last answer had no definition */
  let missing = false;
  let round = 1;
  for (let stream = request.first; ; round++) {
    let text = '';
    for await (const line of readChatStream(stream)) {
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
    missing = !draft;
    let problems = [NO_DEFINITION];
    if (draft) {
      const checked = deps.check(draft);
      problems = checked.problems;
      last = { definition: (checked.body as Record<string, unknown> | undefined) ?? draft, problems };
    }
    if (problems.length === 0) break;
    if (deps.closed()) return;
    if (round === MAX_ROUNDS) break;
    deps.emit({ type: 'ai.round', data: { round, valid: false, problems } });
    messages.push({ role: 'assistant', content: text }, repairMessage(draft ? problems : 'no-json'));
    stream = await deps.openModel(messages);
    // the client may have gone while the call was opened: its stream is not read
    if (deps.closed()) return void stream.destroy();
  }
  const steps = Array.isArray(last?.definition.steps) ? (last.definition.steps as DefinitionBody['steps']).filter((s) => s && typeof s.id === 'string') : [];
  // the problems of the definition proposed, and a note when the last answer had none
  const problems = [...(last?.problems ?? []), ...(missing ? [NO_DEFINITION] : [])];
  deps.emit({
    type: 'ai.proposal',
    data: {
      definition: last?.definition ?? null,
      valid: last !== undefined && problems.length === 0,
      problems,
      changes: changesFrom(request.base, { steps }),
      rounds: round,
      model,
      usage,
    },
  });
}
