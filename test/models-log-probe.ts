/**
 * Run by models-logs.test.ts as a child process: boots a models kernel with every log on
 * (trace), exercises every path that handles a raw key (create, bad input, rotate, successful
 * and failing calls, streams), then prints PROBE-DONE. The parent reads the whole output and
 * checks that no secret appears in it.
 */
import { startModelsKernel } from './helpers/models-kernel.ts';

const PROBE_SECRETS = ['sk-probe-SECRETONE-0123456789', 'sk-probe-SECRETTWO-9876543210', 'sk-probe-SECRETBAD-000 with space'];

const mk = await startModelsKernel('models_log_probe', { env: { LOG_LEVEL: 'trace' } });
try {
  const messages = [{ role: 'user' as const, content: 'hi' }];
  const key = await mk.addKey('owner-token', { api_key: PROBE_SECRETS[0] });
  await mk.call('/api/v1/api-keys', { method: 'POST', token: 'owner-token', json: { name: 'bad', provider: 'openai', api_key: PROBE_SECRETS[2], default_model: 'm' } });
  await mk.call('/api/v1/api-keys', { method: 'POST', token: 'member-token', json: { name: 'member', provider: 'openai', api_key: PROBE_SECRETS[1], default_model: 'm' } });
  mk.provider.replies.push({ text: 'fine' }, { error: 401, message: `Incorrect API key provided: ${PROBE_SECRETS[0]}` }, { error: 500, message: `boom ${PROBE_SECRETS[0]}` });
  await mk.chat({ messages });
  await mk.chat({ messages }).catch(() => undefined);
  await mk.chatStream({ messages });
  await mk.call(`/api/v1/api-keys/${key.id}/rotate`, { method: 'POST', token: 'owner-token', json: { api_key: PROBE_SECRETS[1] } });
  mk.provider.replies.push({ chunks: ['a', 'b'], stream_error: `cut ${PROBE_SECRETS[1]}` }, { text: 'fine again' });
  await mk.chatStream({ messages });
  await mk.chat({ messages });
  await mk.call(`/api/v1/api-keys/${key.id}`, { method: 'PUT', token: 'owner-token', json: { api_key: PROBE_SECRETS[1] } });
  // the generate path: tool calls, a retried 429 and a failing 500 whose messages carry the key, structured output gone wrong
  const tools = [{ name: 'search', description: 'Search', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];
  mk.provider.replies.push(
    { error: 429, retry_after: 0, message: `slow down ${PROBE_SECRETS[1]}` },
    { text: 'calling', tool_calls: [{ name: 'search', arguments: { q: 'x' } }] },
    { error: 500, message: `boom ${PROBE_SECRETS[1]}` },
    { error: 500, message: `boom ${PROBE_SECRETS[1]}` },
    { error: 500, message: `boom ${PROBE_SECRETS[1]}` },
    { object: { wrong: true } },
  );
  await mk.generateStream({ messages, tools });
  await mk.generate({ messages }).catch(() => undefined);
  await mk.generate({ messages, output: { schema: { type: 'object', required: ['right'] } } }).catch(() => undefined);
} finally {
  await mk.close();
}
console.log('PROBE-DONE');
