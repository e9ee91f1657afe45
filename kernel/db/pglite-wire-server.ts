import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { PgliteSessionScheduler } from './pglite-session-scheduler.ts';

/**
 * A PostgreSQL wire-protocol listener in front of one PGlite instance.
 *
 * It does the framing itself (startup, SSL refusal, typed messages) and hands
 * whole messages to PgliteSessionScheduler, which keeps each connection's
 * protocol exchange together on PGlite's single session. This replaces
 * PGLiteSocketServer from @electric-sql/pglite-socket 0.2, whose queue lets
 * two connections' extended-protocol batches interleave (see the scheduler).
 */

const SSL_REQUEST_CODE = 80877103;
const GSSENC_REQUEST_CODE = 80877104;
const CANCEL_REQUEST_CODE = 80877102;
const TERMINATE = 0x58; // 'X'
const MAX_MESSAGE_BYTES = 1 << 30; // the server's own limit for one message

export interface PgliteWireServerOptions {
  db: PGlite;
  host: string;
  port: number;
  maxConnections: number;
}

export interface PgliteWireServer {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startPgliteWireServer(options: PgliteWireServerOptions): Promise<PgliteWireServer> {
  const scheduler = new PgliteSessionScheduler(options.db);
  const sockets = new Set<Socket>();
  const releases = new Set<Promise<void>>();
  let nextConnectionId = 1;

  const server: Server = createServer((socket) => {
    if (sockets.size >= options.maxConnections) {
      socket.end(fatalErrorMessage('53300', 'sorry, too many clients already'));
      return;
    }
    sockets.add(socket);
    const connectionId = nextConnectionId++;
    socket.once('close', () => {
      sockets.delete(socket);
      const released = scheduler.release(connectionId).catch(() => {});
      releases.add(released);
      void released.finally(() => releases.delete(released));
    });
    serveConnection(socket, connectionId, scheduler);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;

  return {
    host: options.host,
    port: address.port,
    async close(): Promise<void> {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const socketsClosed = [...sockets].map((socket) => once(socket, 'close'));
      for (const socket of sockets) socket.destroy();
      await Promise.all([closed, ...socketsClosed]);
      await Promise.all(releases);
      await scheduler.whenIdle();
    },
  };
}

function serveConnection(socket: Socket, connectionId: number, scheduler: PgliteSessionScheduler): void {
  socket.setNoDelay(true);
  let buffer: Buffer = Buffer.alloc(0);
  let started = false;

  const forward = (message: Buffer): void => {
    const onData = (data: Uint8Array): void => {
      if (data.length > 0 && socket.writable) socket.write(Buffer.from(data));
    };
    scheduler.submit(connectionId, new Uint8Array(message), onData).catch((error: unknown) => {
      socket.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  };

  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    while (!socket.destroyed) {
      const frame = started ? readTypedMessage(buffer) : readStartupPacket(buffer);
      if (frame === 'incomplete') return;
      if (frame === 'invalid') {
        socket.destroy();
        return;
      }
      buffer = buffer.subarray(frame.length);
      if (started) {
        if (frame.message[0] === TERMINATE) {
          socket.end();
          return;
        }
        forward(frame.message);
        continue;
      }
      const code = frame.message.readInt32BE(4);
      if (code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE) {
        socket.write('N'); // encryption not offered; the client goes on in plain text
      } else if (code === CANCEL_REQUEST_CODE) {
        socket.end(); // cancellation is not supported by a single in-process session
        return;
      } else {
        started = true;
        forward(frame.message);
      }
    }
  });
}

type Frame = { message: Buffer; length: number } | 'incomplete' | 'invalid';

/** Startup-phase packets have no type byte: int32 length, then int32 code. */
function readStartupPacket(buffer: Buffer): Frame {
  if (buffer.length < 8) return 'incomplete';
  const length = buffer.readInt32BE(0);
  if (length < 8 || length > MAX_MESSAGE_BYTES) return 'invalid';
  if (buffer.length < length) return 'incomplete';
  return { message: Buffer.from(buffer.subarray(0, length)), length };
}

/** Regular messages: one type byte, then int32 length that counts itself. */
function readTypedMessage(buffer: Buffer): Frame {
  if (buffer.length < 5) return 'incomplete';
  const length = buffer.readInt32BE(1);
  if (length < 4 || length > MAX_MESSAGE_BYTES) return 'invalid';
  if (buffer.length < length + 1) return 'incomplete';
  return { message: Buffer.from(buffer.subarray(0, length + 1)), length: length + 1 };
}

function fatalErrorMessage(sqlState: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlState}\0M${text}\0\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('E', 0, 'ascii');
  header.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([header, fields]);
}
