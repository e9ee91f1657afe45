import { describe, expect, it } from 'vitest';
import { readSse, SseParser, type SseEvent } from '../src/pages/chat/sse';

function textStream(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode(text));
      c.close();
    },
  });
}

const all = (chunks: string[]): SseEvent[] => {
  const p = new SseParser();
  return chunks.flatMap((c) => p.push(c));
};

describe('the event-stream parser', () => {
  it('reads event, data and id, and names a frame without event "message"', () => {
    expect(all(['event: tool.call\nid: 7\ndata: {"id":"c1"}\n\ndata: plain\n\n'])).toEqual([
      { event: 'tool.call', id: '7', data: '{"id":"c1"}' },
      { event: 'message', data: 'plain' },
    ]);
  });

  it('gives the same events however the bytes are split, even inside a CRLF', () => {
    const text = 'event: text.delta\r\ndata: {"text":"Hel"}\r\n\r\nevent: text.delta\r\ndata: {"text":"lo"}\r\n\r\n';
    const whole = all([text]);
    expect(whole).toHaveLength(2);
    for (let cut = 1; cut < text.length; cut++) expect(all([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
    expect(all(text.split(''))).toEqual(whole);
  });

  it('joins data lines with newlines, skips comments, takes CR alone as a line end, strips one space only', () => {
    expect(all([': keep-alive\n\ndata:  two spaces\ndata:x\n\n', 'event: a\rdata: cr\r\r'])).toEqual([
      { event: 'message', data: ' two spaces\nx' },
      { event: 'a', data: 'cr' },
    ]);
  });

  it('drops a frame with no data, and an unfinished frame at the end of the stream', async () => {
    expect(all(['event: ping\n\n'])).toEqual([]);
    const body = textStream('event: message.end\ndata: {}\n\nevent: cut\ndata: {"half":');
    const seen: SseEvent[] = [];
    await readSse(body, (e) => seen.push(e));
    expect(seen.map((e) => e.event)).toEqual(['message.end']);
  });

  it('decodes UTF-8 split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: {"text":"héllo ✓"}\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of bytes) c.enqueue(new Uint8Array([b]));
        c.close();
      },
    });
    const seen: SseEvent[] = [];
    await readSse(body, (e) => seen.push(e));
    expect(JSON.parse(seen[0]!.data)).toEqual({ text: 'héllo ✓' });
  });
});
