import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface RunningS3rver {
  endpoint: string;
  /** s3rver's fixed development credentials. */
  accessKeyId: string;
  secretAccessKey: string;
  /** Stops the server and deletes its directory. */
  close(): Promise<void>;
}

/** A real S3-compatible server on a free port of 127.0.0.1, storing into its own temp directory. */
export async function startS3rver(): Promise<RunningS3rver> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
