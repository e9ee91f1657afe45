import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Context } from 'moleculer';

/** The last line of a stream that ended without its `done` or `error` line. */
export interface StreamCutLine {
  type: 'error';
  status: 502;
  code: 'MODELS_ERR_STREAM_CUT';
  message: string;
}

/**
 * The param of a streaming action whose caller reads it with readNdjsonStream: `true` lets the
 * action answer an object-mode stream of the same lines when the caller runs on its node.
 */
export const LOCAL_OBJECTS_RULE = { type: 'boolean', optional: true, description: 'the caller reads with readNdjsonStream: answer objects when on the same node' } as const;

/** Whether a line stream may go to this caller as objects: it asked, and the call came from this node (a stream between nodes is bytes). */
export function objectsFor(ctx: Context, asked: boolean | undefined): boolean {
  return asked === true && ctx.nodeID === ctx.broker.nodeID;
}

/** A stream of `{type, ...}` lines being written: NDJSON bytes, or objects for a reader on the same node. */
export interface LineStream {
  stream: Readable;
  /** writes one line; nothing once the reader destroyed the stream */
  write(line: object): void;
  /** writes the last line and ends */
  end(line: object): void;
}

/**
 * Opens a line stream. In object mode the lines are handed over as they are (no JSON encoding
 * and parsing per line: a chat stream's deltas cross two such streams), so a writer must not
 * change a line it wrote, and a reader must not change one it read.
 */
export function openLineStream(objects: boolean): LineStream {
  // a readable pushed into (no writable side to pass each line through); lines are never held
  // back for the reader (the writers' lines are small and few, and a model stream cannot wait)
  const stream = new Readable({ objectMode: objects, read() {} });
  const encode = objects ? (line: object) => line : (line: object) => `${JSON.stringify(line)}\n`;
  let ended = false;
  return {
    stream,
    write: (line) => void (ended || stream.destroyed || stream.push(encode(line))),
    end: (line) => {
      if (ended || stream.destroyed) return;
      ended = true;
      stream.push(encode(line));
      stream.push(null);
    },
  };
}

/**
 * Reads an NDJSON byte stream (a `models.chatStream` or `models.generateStream` answer, or any
 * stream of `{type, ...}` lines ending in one `done` or `error` line) line by line, whatever
 * the chunking (multi-byte characters split across chunks included), or the object-mode stream
 * of the same lines a local call answers (openLineStream). A stream that ends without its
 * `done` or `error` line (the serving node went away) yields a final error line with code
 * `MODELS_ERR_STREAM_CUT` and `cutMessage`.
 */
export async function* readNdjsonStream<T extends { type: string }>(stream: AsyncIterable<Buffer | string | object>, cutMessage: string): AsyncGenerator<T | StreamCutLine> {
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
    if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) {
      const line = chunk as T;
      if (line.type === 'done' || line.type === 'error') finished = true;
      yield line;
      continue;
    }
    buffered += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
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
