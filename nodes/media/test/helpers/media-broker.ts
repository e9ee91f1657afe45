import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachKernel, type KernelContext } from '../../../../kernel/context.ts';
import { LocalDiskObjectStore } from '../../../../kernel/objects/local-disk.ts';
import { startNodeBroker, type NodeBroker } from '../../../../test/helpers/node-broker.ts';

/** A bare broker serving media node types, with a kernel object store on a temp dir (what kernelOf gives the nodes). */
export async function startMediaBroker(services: object[]): Promise<NodeBroker & { objects: LocalDiskObjectStore }> {
  const dir = mkdtempSync(join(tmpdir(), 'media-test-objects-'));
  const objects = new LocalDiskObjectStore({ dir });
  const n = await startNodeBroker(services);
  attachKernel(n.broker, { objects } as unknown as KernelContext);
  return {
    ...n,
    objects,
    async close() {
      await n.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
