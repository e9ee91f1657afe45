import type { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import type { GenerateParams, GenerateResult, GenerateStreamParams } from '../../../kernel/models-generate-contract.ts';
import { LOCAL_OBJECTS_RULE, objectsFor } from '../../../kernel/ndjson-stream.ts';
import { checkGenerate, GENERATE_PARAMS } from '../params.ts';
import type { ModelsAction } from '../service.ts';
import { streamTurn } from '../stream.ts';
import { prepareTurn, runTurn } from '../turn.ts';

/**
 * `models.generate` (internal): one model turn with tools (declared, never run here) and
 * optional structured output; contract and errors in kernel/models-generate-contract.ts.
 * `timeout: 0`: bounded by MODEL_REQUEST_TIMEOUT_SECONDS (retries included).
 */
export const generate: ModelsAction = {
  visibility: 'public',
  timeout: 0,
  params: GENERATE_PARAMS,
  async handler(ctx: Context<GenerateParams>): Promise<GenerateResult> {
    checkGenerate(ctx.params);
    const turn = await prepareTurn(this, ctx, ctx.params, 'generate');
    return runTurn(this, turn, () => undefined);
  },
};

/**
 * `models.generateStream` (internal): the same turn as NDJSON lines (`text.delta`,
 * `tool.call.delta`, `tool.call`, `retry`, then one `done` or `error`). Errors known before the
 * provider is called are thrown. `local_objects`: the same lines as objects to a caller on this
 * node (kernel/ndjson-stream.ts).
 */
export const generateStream: ModelsAction = {
  visibility: 'public',
  params: { ...GENERATE_PARAMS, local_objects: LOCAL_OBJECTS_RULE },
  async handler(ctx: Context<GenerateStreamParams>): Promise<Readable> {
    checkGenerate(ctx.params);
    const turn = await prepareTurn(this, ctx, ctx.params, 'generate');
    return streamTurn(this, turn, { eventLine: (e) => e, doneLine: (r) => ({ type: 'done', ...r }) }, objectsFor(ctx, ctx.params.local_objects));
  },
};
