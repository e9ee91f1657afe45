import yauzl from 'yauzl';
import { NodeStepError } from '../../kernel/nodes/model-step.ts';
import type { StepBudget } from '../../kernel/nodes/data-node.ts';

export const MAX_UNZIPPED_BYTES = 64 * 1024 * 1024;
export const MAX_ZIP_ENTRIES = 2000;
const MAX_RATIO = 200;

/**
 * A zip bomb is refused before the XLSX reader inflates anything: the archive's entries are
 * inflated here first (yauzl checks each against its declared size), counting every byte, and
 * stopped at MAX_UNZIPPED_BYTES in all, MAX_ZIP_ENTRIES entries, or an entry expanding more than
 * MAX_RATIO times.
 */
export async function guardZip(buffer: Buffer, budget: StepBudget): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: true }, (err, z) => (err || !z ? reject(bad(`The file is not a readable ZIP/XLSX archive (${err?.message ?? 'unknown'}).`)) : resolve(z))),
  );
  let total = 0;
  let entries = 0;
  await new Promise<void>((resolve, reject) => {
    const fail = (err: unknown) => {
      zip.close();
      reject(err);
    };
    zip.on('error', (err: Error) => fail(bad(`The archive is damaged: ${err.message}.`)));
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      if (++entries > MAX_ZIP_ENTRIES) return fail(bad(`The archive has more than ${MAX_ZIP_ENTRIES} entries.`));
      if (entry.uncompressedSize > MAX_UNZIPPED_BYTES || (entry.compressedSize > 0 && entry.uncompressedSize / entry.compressedSize > MAX_RATIO && entry.uncompressedSize > 1024 * 1024)) {
        return fail(bad(`The archive entry '${entry.fileName.slice(0, 100)}' expands to ${entry.uncompressedSize} bytes: a zip bomb is not read.`));
      }
      if (/\/$/.test(entry.fileName)) return zip.readEntry();
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return fail(bad(`The archive entry '${entry.fileName.slice(0, 100)}' cannot be read.`));
        stream.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > MAX_UNZIPPED_BYTES) {
            stream.destroy();
            fail(bad(`The archive expands to more than ${MAX_UNZIPPED_BYTES} bytes: a zip bomb is not read.`));
          }
        });
        stream.on('error', (e: Error) => fail(bad(`The archive entry '${entry.fileName.slice(0, 100)}' is damaged: ${e.message}.`)));
        stream.on('end', () => {
          try {
            budget.check();
          } catch (e) {
            return fail(e);
          }
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
}

function bad(message: string): NodeStepError {
  return new NodeStepError(message, 'BAD_FILE');
}
