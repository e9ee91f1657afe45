import test from 'ava';
import { ServiceBroker, type Context } from 'moleculer';
import { Readable } from 'node:stream';
import { LOCAL_OBJECTS_RULE, objectsFor, openLineStream, readNdjsonStream } from '../kernel/ndjson-stream.ts';

type Line = { type: string; text?: string };

async function readAll(stream: AsyncIterable<Buffer | string | object>): Promise<Line[]> {
  const lines: Line[] = [];
  for await (const line of readNdjsonStream<Line>(stream, 'cut')) lines.push(line as Line);
  return lines;
}

const LINES = [{ type: 'text.delta', text: 'héllo ' }, { type: 'text.delta', text: 'wörld' }];

test('a line stream reads back the same lines as bytes and as objects', async (t) => {
  for (const objects of [false, true]) {
    const { stream, write, end } = openLineStream(objects);
    for (const line of LINES) write(line);
    end({ type: 'done' });
    t.deepEqual(await readAll(stream), [...LINES, { type: 'done' }], objects ? 'objects' : 'bytes');
  }
});

test('bytes split anywhere (inside a multi-byte character too) read back line by line; a stream without its done line ends with a cut line', async (t) => {
  const bytes = Buffer.from(LINES.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
  t.deepEqual(await readAll(Readable.from(chunks)), [...LINES, { type: 'error', status: 502, code: 'MODELS_ERR_STREAM_CUT', message: 'cut' }]);
  const { stream, write } = openLineStream(true);
  write(LINES[0]);
  stream.push(null); // ended without its done line (the serving node went away)
  t.like((await readAll(stream)).at(-1), { type: 'error', code: 'MODELS_ERR_STREAM_CUT' });
});

test('writing after the reader destroyed the stream does nothing', (t) => {
  for (const objects of [false, true]) {
    const { stream, write, end } = openLineStream(objects);
    stream.destroy();
    t.notThrows(() => {
      write(LINES[0]);
      end({ type: 'done' });
    });
  }
});

test('objects go only to a caller on the same node that asked for them; another node gets bytes', async (t) => {
  const serve = {
    name: 'lines',
    actions: {
      open: {
        params: { local_objects: LOCAL_OBJECTS_RULE },
        handler(ctx: Context<{ local_objects?: boolean }>) {
          const { stream, write, end } = openLineStream(objectsFor(ctx, ctx.params.local_objects));
          write(LINES[0]);
          end({ type: 'done' });
          return stream;
        },
      },
    },
  };
  const transporter = 'Fake';
  const server = new ServiceBroker({ logger: false, nodeID: `lines-server-${process.pid}`, transporter });
  const client = new ServiceBroker({ logger: false, nodeID: `lines-client-${process.pid}`, transporter });
  server.createService(serve);
  t.teardown(async () => {
    await client.stop();
    await server.stop();
  });
  await Promise.all([server.start(), client.start()]);
  await client.waitForServices('lines');

  const local = await server.call<Readable, object>('lines.open', { local_objects: true });
  t.true(local.readableObjectMode);
  t.deepEqual(await readAll(local), [LINES[0], { type: 'done' }]);
  const unasked = await server.call<Readable, object>('lines.open', {});
  t.false(unasked.readableObjectMode);
  t.deepEqual(await readAll(unasked), [LINES[0], { type: 'done' }]);
  const remote = await client.call<Readable, object>('lines.open', { local_objects: true });
  t.false(remote.readableObjectMode);
  t.deepEqual(await readAll(remote), [LINES[0], { type: 'done' }]);
});
