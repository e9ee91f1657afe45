import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { NodeTypeDeclaration } from './contract.ts';

/** The declarations of the node-type packages in a `nodes/` folder (each package's default export, `metadata.nodeType`). */
export async function nodeDeclarations(nodesDir: string): Promise<NodeTypeDeclaration[]> {
  const out: NodeTypeDeclaration[] = [];
  for (const name of readdirSync(nodesDir).sort()) {
    const entry = join(nodesDir, name, 'index.ts');
    if (!existsSync(entry)) continue;
    const mod = (await import(pathToFileURL(entry).href)) as { default?: { metadata?: { nodeType?: NodeTypeDeclaration } } };
    const declaration = mod.default?.metadata?.nodeType;
    if (declaration) out.push(declaration);
  }
  return out;
}
