import { writeFileSync } from 'node:fs';
import { nodeDeclarations } from './declarations.ts';
import { renderNodeDocs } from './docs.ts';

const root = new URL('../../', import.meta.url);
writeFileSync(new URL('docs/nodes.md', root), renderNodeDocs(await nodeDeclarations(new URL('nodes', root).pathname)));
console.log('wrote docs/nodes.md');
