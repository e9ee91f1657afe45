import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendProblem } from './send.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { IdempotentReplay, releaseKey, resolveLostClaim, writeReplay } from './idempotency.ts';

export interface FailLogger {
  error(obj: object, msg: string): void;
}

/**
 * How any /api request that failed is answered: problem+json (a 429 says when to retry, from the
 * rate limiter's reset header), and a 5xx is logged with the request id the client was given.
 * An Idempotency-Key the request held is freed first, so a retry of it runs again; a replay of
 * a key's first response comes this way too, and is written back as it was. A key an action
 * found held in its own write is read here and answered as a claim before the action would be.
 */
export function failRequest(logger: FailLogger, req: IncomingMessage, res: ServerResponse, err: unknown, requestId: string | undefined): void {
  if (err instanceof IdempotentReplay) return writeReplay(res, err.response, requestId);
  const lost = ERRORS.IDEMPOTENCY_CLAIM_LOST.is(err) ? resolveLostClaim(req) : undefined;
  if (lost) return void lost.catch((answer: unknown) => failRequest(logger, req, res, answer, requestId));
  const released = releaseKey(req);
  if (!released) return answerFailure(logger, req, res, err, requestId);
  released.then(
    () => answerFailure(logger, req, res, err, requestId),
    (releaseErr: unknown) => {
      logger.error({ request_id: requestId, err: releaseErr }, 'freeing the Idempotency-Key of a failed request failed');
      answerFailure(logger, req, res, err, requestId);
    },
  );
}

function answerFailure(logger: FailLogger, req: IncomingMessage, res: ServerResponse, err: unknown, requestId: string | undefined): void {
  const reset = Number(res.getHeader('X-Rate-Limit-Reset'));
  if ((err as { type?: string }).type === 'RATE_LIMIT_EXCEEDED' && reset) {
    (err as { data?: unknown }).data = { retry_after: Math.max(1, Math.ceil((reset - Date.now()) / 1000)) };
  }
  const status = sendProblem(res, err, requestId);
  if (status >= 500) logger.error({ request_id: requestId, method: req.method, url: (req as { originalUrl?: string }).originalUrl ?? req.url, err }, 'request failed');
}
