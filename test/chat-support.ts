/** Helpers of the chat tests: SSE frames read off a fetch response, multipart bodies. */

export interface SseFrame {
  id?: number;
  event: string;
  data: any;
}

/**
 * Reads SSE frames until the stream ends or `stop(frame)` says so (then the reader is cancelled,
 * which closes the connection when `abort` is given).
 */
export async function readFrames(res: Response, stop?: (f: SseFrame, all: SseFrame[]) => boolean, abort?: AbortController): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: Partial<SseFrame> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) frame.id = Number(line.slice(4));
          else if (line.startsWith('event: ')) frame.event = line.slice(7);
          else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
        }
        if (!frame.event) continue;
        frames.push(frame as SseFrame);
        if (stop?.(frame as SseFrame, frames)) {
          abort?.abort();
          await reader.cancel().catch(() => undefined);
          return frames;
        }
      }
    }
  } catch (err) {
    if (!abort?.signal.aborted) throw err;
  }
  return frames;
}

/** A multipart form of chat fields and files. */
export function chatForm(fields: Record<string, string>, files: { name: string; type: string; body: Uint8Array | string }[] = []): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([f.body as BlobPart], { type: f.type }), f.name);
  return form;
}

export const textOf = (frames: SseFrame[]): string => frames.filter((f) => f.event === 'text.delta').map((f) => f.data.text).join('');
