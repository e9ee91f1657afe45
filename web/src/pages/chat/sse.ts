/** One server-sent event as the WHATWG event-stream format defines it. */
export interface SseEvent {
  /** `message` when the frame named none */
  event: string;
  data: string;
  /** the frame's own `id:` field (undefined when it had none) */
  id?: string;
}

/**
 * An incremental text/event-stream parser: feed it decoded chunks as they arrive (a frame may
 * be split anywhere, even inside a line ending) and it hands back the complete events.
 * Follows the spec's rules: CRLF, LF or CR line ends; `:` comments; several `data:` lines
 * joined by newlines; one optional space after the colon; a frame with no data is dropped.
 */
export class SseParser {
  private buffer = '';
  private pendingCr = false;
  private event = '';
  private data: string[] = [];
  private id: string | undefined;
  private hasData = false;

  push(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    let text = chunk;
    // a CR that ended the previous chunk may be the first half of a CRLF
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      const line = this.buffer.slice(start, i);
      if (c === '\r') {
        if (i + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
      const done = this.line(line);
      if (done) out.push(done);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') {
      this.data.push(value);
      this.hasData = true;
    } else if (field === 'id' && !value.includes('\u0000')) this.id = value;
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const event: SseEvent | undefined = this.hasData ? { event: this.event || 'message', data: this.data.join('\n'), ...(this.id !== undefined ? { id: this.id } : {}) } : undefined;
    this.event = '';
    this.data = [];
    this.hasData = false;
    this.id = undefined;
    return event;
  }
}

/**
 * Reads a response body of server-sent events to its end, calling `onEvent` for each one.
 * Resolves when the server closes the stream; rejects if reading fails (an abort included).
 */
export async function readSse(body: ReadableStream<Uint8Array>, onEvent: (e: SseEvent) => void): Promise<void> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const e of parser.push(decoder.decode(value, { stream: true }))) onEvent(e);
    }
    // an event left unterminated at the end is discarded, as the format says
    for (const e of parser.push(decoder.decode())) onEvent(e);
  } finally {
    reader.releaseLock();
  }
}
