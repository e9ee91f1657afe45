/**
 * The kernel's object store: uploads, generated artifacts and file data blocks.
 *
 *   const objects = createObjectStore({ driver: 'local', dir: 'data/objects' });
 *   const objects = createObjectStore({ driver: 's3', s3: { endpoint, bucket, accessKeyId, secretAccessKey } });
 *   await objects.check();                       // at boot: fail fast with a clear message
 *   await objects.put('uploads/1/a.pdf', ctx.stream, { contentType: 'application/pdf' });
 *   const object = await objects.get('uploads/1/a.pdf'); // null when missing
 */
import { LocalDiskObjectStore } from './local-disk.ts';
import { S3ObjectStore } from './s3.ts';
import type { CreateObjectStoreOptions, ObjectStore } from './types.ts';

export type * from './types.ts';
export { LocalDiskObjectStore } from './local-disk.ts';
export { S3ObjectStore } from './s3.ts';

export function createObjectStore(opts: CreateObjectStoreOptions): ObjectStore {
  switch (opts.driver) {
    case 'local':
      if (!opts.dir) throw new Error('createObjectStore: the local driver needs dir');
      return new LocalDiskObjectStore({ dir: opts.dir });
    case 's3':
      if (!opts.s3) throw new Error('createObjectStore: the s3 driver needs s3 options (at least bucket)');
      return new S3ObjectStore(opts.s3);
    default:
      throw new Error(`createObjectStore: unknown driver ${JSON.stringify((opts as { driver: unknown }).driver)}; use 's3' or 'local'`);
  }
}
