import { Agent, request, type IncomingMessage } from 'node:http';

/** One chat stream as the bench's client reads it. */
export interface StreamResult {
  /** per token index: performance.now() when the text.delta frame carrying it was read */
  arrivals: Map<number, number>;
  ok: boolean;
  error?: string;
  requested: number;
  ended: number;
}

/** Opens one `POST /api/v1/chat/stream` and reads it to its end; a request that fails is a failed stream, with its cause. */
export async function openChatStream(api: string, token: string, message: string): Promise<StreamResult> {
  const requested = performance.now();
  try {
    return await readChatStream(api, token, message, requested);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { arrivals: new Map(), ok: false, error: `${(err as Error).message}${cause ? `: ${cause.code ?? cause.message}` : ''}`, requested, ended: performance.now() };
  }
}

/** One form-data body of text fields (the load generator builds it by hand: no FormData and fetch per stream). */
function formBody(fields: Record<string, string>): { body: string; type: string } {
  const boundary = `bench${Math.random().toString(16).slice(2)}`;
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return { body: `${parts.join('')}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

/** An HTTP agent without a pool limit (node:http's default is unbounded, said here as intended). */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

async function readChatStream(api: string, token: string, message: string, requested: number): Promise<StreamResult> {
  const form = formBody({ message, workspace_context: 'false' });
  // node:http, not fetch: the load generator reads 500 streams in one process, and fetch's web
  // streams cost it several times the CPU (its lag would count as the kernel's added latency)
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(`${api}/api/v1/chat/stream`, { method: 'POST', agent, headers: { Authorization: `Bearer ${token}`, 'content-type': form.type, 'content-length': Buffer.byteLength(form.body) } }, resolve);
    req.once('error', reject);
    req.end(form.body);
  });
  const arrivals = new Map<number, number>();
  res.setEncoding('utf8');
  if (res.statusCode !== 200) {
    let body = '';
    for await (const part of res) body += part;
    return { arrivals, ok: false, error: `status ${res.statusCode}: ${body}`, requested, ended: performance.now() };
  }
  let text = '';
  let scanned = 0;
  for await (const part of res as AsyncIterable<string>) {
    const now = performance.now();
    text += part;
    // a frame may carry several tokens (deltas read in the same event-loop turn go out together)
    for (const m of text.slice(scanned).matchAll(/event: text\.delta\ndata: (\{.*\})\n\n/g)) {
      for (const t of (JSON.parse(m[1]) as { text: string }).text.matchAll(/tok(\d+) /g)) if (!arrivals.has(Number(t[1]))) arrivals.set(Number(t[1]), now);
    }
    // the next read starts after the last whole frame (a frame split across reads is read again)
    scanned = Math.max(scanned, text.lastIndexOf('\n\n') + 2);
  }
  const ended = text.includes('event: message.end') && !text.includes('event: error');
  return { arrivals, ok: ended, error: ended ? undefined : text.slice(-300), requested, ended: performance.now() };
}
