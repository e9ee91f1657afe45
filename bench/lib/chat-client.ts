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

async function readChatStream(api: string, token: string, message: string, requested: number): Promise<StreamResult> {
  const form = new FormData();
  form.set('message', message);
  form.set('workspace_context', 'false');
  const res = await fetch(`${api}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  const arrivals = new Map<number, number>();
  if (res.status !== 200 || !res.body) return { arrivals, ok: false, error: `status ${res.status}: ${await res.text()}`, requested, ended: performance.now() };
  let text = '';
  let scanned = 0;
  const decoder = new TextDecoder();
  for await (const part of res.body) {
    const now = performance.now();
    text += decoder.decode(part, { stream: true });
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
