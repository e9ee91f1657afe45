import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Small test media made by ffmpeg's lavfi sources (`sine`, `testsrc`): `ffmpeg -f lavfi -i <source> <args> out.<ext>`. */
export function generate(source: string, args: string[], ext: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'media-test-gen-'));
  try {
    const out = join(dir, `out.${ext}`);
    execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-nostdin', '-f', 'lavfi', '-i', source, ...args, out]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const b64 = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64');
