import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monotonicMs } from './monotonic.ts';

/**
 * A streaming OpenAI-compatible provider for the chat bench: it finds the marker (`m-...`) in
 * the last user message, notes when it writes each token of that answer (`sentAt`, on the
 * machine's monotonic clock: it runs in a process of its own, chat-provider-process.ts) and
 * sends `n=<count>` tokens (from the message, else `defaultChunks`) `intervalMs` apart.
 */
export interface ChatProvider {
  server: Server;
  /** per `<marker>#<token index>`: monotonicMs() when the provider wrote that token */
  sentAt: Map<string, number>;
}

export function chatProvider(defaultChunks: number, intervalMs: number): ChatProvider {
  const sentAt = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as { messages: { role: string; content: unknown }[] };
      const last = body.messages.filter((m) => m.role === 'user').at(-1);
      const text = String(typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content));
      const marker = text.match(/m-[a-z0-9-]+/)?.[0] ?? '?';
      const chunks = Number(text.match(/\bn=(\d+)/)?.[1] ?? defaultChunks);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
        res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      let sent = 0;
      const next = () => {
        if (res.destroyed) return;
        sentAt.set(`${marker}#${sent}`, monotonicMs());
        chunk({ content: `tok${sent} ` });
        if (++sent < chunks) return void setTimeout(next, intervalMs);
        chunk({}, 'stop');
        res.end('data: [DONE]\n\n');
      };
      next();
    });
  });
  return { server, sentAt };
}

/** Run as a process (chat-provider-process.ts starts it): listens, says its port, answers `sent` with what it wrote when. */
if (process.argv[1] === import.meta.filename && process.send) {
  const provider = chatProvider(Number(process.argv[2]), Number(process.argv[3]));
  provider.server.listen(0, '127.0.0.1', () => process.send!({ port: (provider.server.address() as AddressInfo).port }));
  process.on('message', (m: { type: string }) => {
    if (m.type === 'sent') process.send!({ sent: [...provider.sentAt] });
  });
  process.on('disconnect', () => process.exit(0));
}
