import type { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { toProblem } from '../../../kernel/errors/problem.ts';
import { MODELS_CHAT_STREAM_ACTION, type ChatMessage } from '../../../kernel/models-contract.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { draftProblems } from '../ai-edit/draft-check.ts';
import { requestMessage, systemPrompt } from '../ai-edit/prompt.ts';
import { runAiEdit } from '../ai-edit/session.ts';
import type { DefinitionBody } from '../definitions/validate.ts';
import type { WorkflowsAction } from '../service.ts';
import { openSse } from '../../../kernel/sse.ts';

interface AiEditParams {
  prompt: string;
  workflow_id?: string;
  definition?: DefinitionBody;
  api_key_id?: string;
  model?: string;
}

const MAX_TOKENS = 8192;

/** Moleculer's own "nobody serves this action" errors: the models package is not loaded anywhere. */
function isMissingService(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  return name === 'ServiceNotFoundError' || name === 'ServiceNotAvailableError';
}

/**
 * `POST /api/v1/workflows/ai-edit`: a natural-language request becomes a proposed definition,
 * streamed as SSE. The model (the entity's model provider key, through the `models` package)
 * sees every loaded node type with its config schema; its answer is checked exactly like a
 * save, and the problems go back to it for at most two repairs. Nothing is stored: the
 * editor shows the proposal and the user saves it with PUT or POST.
 */
export const aiEdit: WorkflowsAction = {
  rest: 'POST /ai-edit',
  summary: 'Generate or edit a workflow from a natural-language request (SSE)',
  description:
    'Generates a definition from `prompt`, or edits `definition` (an unsaved draft) or the saved workflow `workflow_id`. The answer is a `text/event-stream`: `ai.started`, `ai.delta` (the model\'s text as it arrives), `ai.round` (a draft that would not save, with its problems, before the model is asked to repair it), then `ai.proposal` `{definition, valid, problems, changes, rounds, model, usage}` or `ai.error`. Nothing is persisted. Uses the entity\'s default model provider key unless `api_key_id` names another (422 MODELS_ERR_NO_KEY when there is none; 503 when the models package is not loaded).',
  tags: ['workflows'],
  params: {
    prompt: { type: 'string', min: 1, max: 8000, trim: true },
    workflow_id: { type: 'string', min: 1, max: 64, optional: true },
    definition: { type: 'object', optional: true, props: { steps: { type: 'array', items: 'object', max: 500 } } },
    api_key_id: { type: 'string', min: 1, max: 64, optional: true },
    model: { type: 'string', min: 1, max: 200, optional: true },
  },
  response: { 200: { description: 'Server-sent events', contentType: 'text/event-stream', schema: { type: 'string' } } },
  async handler(ctx: Context<AiEditParams>) {
    const p = ctx.params;
    let base: DefinitionBody | undefined;
    let baseRef: { workflow_id: string; version: number } | undefined;
    if (p.workflow_id) {
      const row = await this.definitions.get(entityOf(ctx), p.workflow_id);
      base = { name: row.name, description: row.description, trigger_type: row.trigger_type, steps: row.steps, variables: row.variables };
      baseRef = { workflow_id: row.id, version: row.version };
    }
    if (p.definition) base = p.definition;
    const system = systemPrompt(this.nodeTypes.list());
    const open = async (messages: ChatMessage[]): Promise<Readable> => {
      try {
        return (await ctx.call(MODELS_CHAT_STREAM_ACTION, { messages, system, api_key_id: p.api_key_id, model: p.model, max_tokens: MAX_TOKENS }, { timeout: 0 })) as Readable;
      } catch (err) {
        if (isMissingService(err)) throw ERRORS.SERVICE_UNAVAILABLE('AI editing needs model provider keys, and the models package is not loaded on this deployment.');
        throw err;
      }
    };
    // the first call before the stream opens: no key, a foreign key or no models package is a plain HTTP error
    const message = requestMessage(p.prompt, base);
    /** the model call under way: a client that goes away aborts it */
    let current = await open([message]);
    const sse = openSse(ctx, 'ai edit', { onEnd: () => current.destroy() });
    void runAiEdit(
      {
        openModel: async (messages) => (current = await open(messages)),
        check: (draft) => draftProblems(this.broker, this.nodeTypes, draft),
        emit: (e) => sse.send(e),
        closed: () => sse.ended(),
      },
      { message, first: current, base, baseRef },
    )
      .catch((err: unknown) => {
        if (sse.ended()) return; // the client went away: its model call was cut
        // a problem error (a model call refused, say) is told as it is; an unexpected one only as a 500
        const { status, code, title, detail } = toProblem(err).body;
        if (status >= 500) this.logger.error({ err }, 'ai-edit failed');
        sse.send({ type: 'ai.error', data: { status, code, title, detail } });
      })
      .finally(sse.end);
    return sse.stream;
  },
};
