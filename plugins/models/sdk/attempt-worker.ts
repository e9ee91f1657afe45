import { parentPort, workerData } from 'node:worker_threads';
import { AddressPolicy } from '../../../kernel/net/address-policy.ts';
import { guardedFetch } from '../../../kernel/net/guarded-fetch.ts';
import { BASE_URL_HINT } from '../base-url.ts';
import { runAttempt } from './attempt.ts';
import { toFailure } from './failure.ts';
import type { ThreadData, ToThread, FromThread } from './attempt-threads.ts';

/**
 * A model stream thread (attempt-threads.ts): runs the attempts it is given with the SDK, posts
 * each event as it comes, then the outcome or the failure, classified and scrubbed here (an
 * SDK error does not survive the trip between threads). An abort message aborts one attempt.
 */
const data = workerData as ThreadData;
const port = parentPort!;
const guarded = guardedFetch({ policy: new AddressPolicy(data.allow), hint: BASE_URL_HINT });
const running = new Map<number, AbortController>();

/**
 * What goes back to the main thread leaves once per turn of this thread's event loop, as one
 * batch: under load a turn reads the chunks of many streams, and one message per chunk would
 * cost the main thread more than the events themselves.
 */
let outbox: FromThread[] = [];
const flush = () => {
  const batch = outbox;
  outbox = [];
  port.postMessage(batch);
};
const post = (message: FromThread) => {
  if (outbox.push(message) === 1) setImmediate(flush);
};

port.on('message', (message: ToThread) => {
  if (message.type === 'abort') {
    running.get(message.id)?.abort();
    return;
  }
  const { id, job } = message;
  const controller = new AbortController();
  running.set(id, controller);
  const target = { ...job.target, fetch: job.target.guarded ? guarded : globalThis.fetch };
  runAttempt({ ...job, target }, controller.signal, (event) => post({ type: 'event', id, event }))
    .then(
      (outcome) => post({ type: 'done', id, outcome }),
      (err: unknown) => {
        const f = toFailure(err, { provider: target.provider, apiKey: target.apiKey, timedOut: false, aborted: controller.signal.aborted, timeoutMs: 0 });
        post({ type: 'failed', id, failure: { kind: f.kind, message: f.message, providerStatus: f.providerStatus, retryable: f.retryable, retryAfterMs: f.retryAfterMs } });
      },
    )
    .finally(() => running.delete(id));
});
port.postMessage([{ type: 'ready' } satisfies FromThread]);
