import type { Readable } from 'node:stream';
import { openLineStream } from '../../kernel/ndjson-stream.ts';
import type { GenerateResult } from '../../kernel/models-generate-contract.ts';
import type { TurnEvent } from './sdk/attempt.ts';
import type { ModelsService } from './service.ts';
import { runTurn, type PreparedTurn } from './turn.ts';

/** How one stream contract writes a turn: which events become lines, what its done line is. */
export interface StreamShape {
  eventLine(e: TurnEvent): object | undefined;
  doneLine(result: GenerateResult): object;
}

/**
 * Runs a prepared turn into a stream of lines: NDJSON bytes (a stream that may cross nodes), or
 * with `objects` the same lines as objects for a caller on this node (openLineStream): the
 * shape's event lines, then one done line or one error line carrying the status and code the
 * non-streaming action would have thrown. Destroying the stream aborts the provider call.
 */
export function streamTurn(svc: ModelsService, turn: PreparedTurn, shape: StreamShape, objects = false): Readable {
  const { stream, write, end } = openLineStream(objects);
  const consumerGone = new AbortController();
  stream.on('close', () => consumerGone.abort());
  runTurn(svc, turn, (e) => {
    const line = shape.eventLine(e);
    if (line) write(line);
  }, consumerGone.signal).then(
    (result) => end(shape.doneLine(result)),
    (err: { code?: unknown; type?: unknown; message?: unknown; data?: { provider_status?: number | null; problems?: unknown; text?: unknown } }) => {
      if (consumerGone.signal.aborted || stream.destroyed) return;
      const known = typeof err.type === 'string' && err.type.startsWith('MODELS_ERR_') && typeof err.code === 'number';
      if (!known) svc.logger.error({ err, api_key_id: turn.apiKeyId }, 'a model stream failed');
      const line = {
        type: 'error',
        status: known ? (err.code as number) : 500,
        code: known ? (err.type as string) : 'INTERNAL_ERROR',
        message: known ? String(err.message) : 'An unexpected error occurred.',
        provider_status: err.data?.provider_status ?? null,
        ...(err.type === 'MODELS_ERR_OUTPUT_INVALID' ? { problems: err.data?.problems, text: err.data?.text } : {}),
      };
      end(line);
    },
  );
  return stream;
}
