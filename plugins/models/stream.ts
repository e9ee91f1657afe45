import { PassThrough } from 'node:stream';
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
 * Runs a prepared turn into a byte stream of NDJSON lines (not object mode: it crosses nodes):
 * the shape's event lines, then one done line or one error line carrying the status and code
 * the non-streaming action would have thrown. Destroying the stream aborts the provider call.
 */
export function streamTurn(svc: ModelsService, turn: PreparedTurn, shape: StreamShape): PassThrough {
  const stream = new PassThrough();
  const consumerGone = new AbortController();
  stream.on('close', () => consumerGone.abort());
  const write = (line: object) => void (stream.destroyed || stream.write(`${JSON.stringify(line)}\n`));
  runTurn(svc, turn, (e) => {
    const line = shape.eventLine(e);
    if (line) write(line);
  }, consumerGone.signal).then(
    (result) => void (stream.destroyed || stream.end(`${JSON.stringify(shape.doneLine(result))}\n`)),
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
      stream.end(`${JSON.stringify(line)}\n`);
    },
  );
  return stream;
}
