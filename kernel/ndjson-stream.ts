import { StringDecoder } from 'node:string_decoder';

/** The last line of a stream that ended without its `done` or `error` line. */
export interface StreamCutLine {
  type: 'error';
  status: 502;
  code: 'MODELS_ERR_STREAM_CUT';
  message: string;
}

/**
 * Reads an NDJSON byte stream (a `models.chatStream` or `models.generateStream` answer, or any
 * stream of `{type, ...}` lines ending in one `done` or `error` line) line by line, whatever
 * the chunking (multi-byte characters split across chunks included). A stream that ends without
 * its `done` or `error` line (the serving node went away) yields a final error line with code
 * `MODELS_ERR_STREAM_CUT` and `cutMessage`.
 */
export async function* readNdjsonStream<T extends { type: string }>(stream: AsyncIterable<Buffer | string>, cutMessage: string): AsyncGenerator<T | StreamCutLine> {
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  let finished = false;
  const parse = (text: string): T | undefined => {
    if (!text.trim()) return undefined;
    const line = JSON.parse(text) as T;
    if (line.type === 'done' || line.type === 'error') finished = true;
    return line;
  };
  for await (const chunk of stream) {
    buffered += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      if (line) yield line;
    }
  }
  const last = parse(buffered + decoder.end());
  if (last) yield last;
  if (!finished) yield { type: 'error', status: 502, code: 'MODELS_ERR_STREAM_CUT', message: cutMessage };
}
