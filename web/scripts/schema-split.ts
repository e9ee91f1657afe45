import ts from 'typescript';
import { astToString } from 'openapi-typescript';

/** Longest a generated part may be (the project's bound on a source file is 400 lines). */
const MAX_PART_LINES = 380;

/** The folder of the parts, next to the index `schema.d.ts`. */
export const PARTS_DIR = 'schema';

const SPLIT = new Set(['paths', 'operations']);

/** `/api/v1/tasks/{id}` -> `tasks`; `tasks.create` -> `tasks`; anything else (`/health/ready`, `/api/openapi.json`) -> `api` */
function areaOf(kind: string, key: string): string {
  const area = kind === 'paths' ? /^\/api\/v1\/([a-z0-9-]+)/.exec(key)?.[1] : key.split('.')[0];
  return area && /^[a-z0-9-]+$/.test(area) ? area : 'api';
}

const pascal = (text: string) => text.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
const lineCount = (text: string) => text.split('\n').length;

function memberName(m: ts.TypeElement): string {
  const name = m.name;
  return name && (ts.isStringLiteral(name) || ts.isIdentifier(name)) ? name.text : '';
}

function interfaceOf(name: string, members: readonly ts.TypeElement[], heritage?: ts.HeritageClause[]): ts.InterfaceDeclaration {
  return ts.factory.createInterfaceDeclaration([ts.factory.createModifier(ts.SyntaxKind.ExportKeyword)], name, undefined, heritage, members);
}

/**
 * openapi-typescript's declarations as files of one job each: the index (`schema.d.ts`: the
 * `components`, and `paths` and `operations` made of their parts) and, under `schema/`, the
 * paths and the operations of each API area (`paths-tasks.d.ts`, `operations-workflows-2.d.ts`
 * when an area is longer than a file may be). Keys: paths relative to the index's folder.
 */
export function splitSchema(nodes: readonly ts.Node[], header: string): Map<string, string> {
  const files = new Map<string, string>();
  const index: ts.Node[] = [];
  const imports: string[] = [];
  for (const node of nodes) {
    if (!ts.isInterfaceDeclaration(node) || !SPLIT.has(node.name.text)) {
      index.push(node);
      continue;
    }
    const kind = node.name.text;
    const byArea = new Map<string, ts.TypeElement[]>();
    for (const m of node.members) {
      const area = areaOf(kind, memberName(m));
      byArea.set(area, [...(byArea.get(area) ?? []), m]);
    }
    const parts: string[] = [];
    for (const [area, members] of [...byArea].sort(([a], [b]) => a.localeCompare(b))) {
      // greedy packing in the generator's order; a member is never cut
      const chunks: ts.TypeElement[][] = [[]];
      let lines = 0;
      for (const m of members) {
        const size = lineCount(astToString(interfaceOf('X', [m]))) - 2;
        if (chunks.at(-1)!.length && lines + size > MAX_PART_LINES) {
          chunks.push([]);
          lines = 0;
        }
        chunks.at(-1)!.push(m);
        lines += size;
      }
      chunks.forEach((chunk, i) => {
        const suffix = chunks.length > 1 ? `-${i + 1}` : '';
        const name = `${pascal(kind)}${pascal(area)}${suffix.replace('-', '')}`;
        const file = `${PARTS_DIR}/${kind}-${area}${suffix}`;
        const body = astToString(interfaceOf(name, chunk));
        const uses = ['components', 'operations'].filter((n) => body.includes(`${n}[`));
        files.set(`${file}.d.ts`, `${header}${uses.length ? `import type { ${uses.join(', ')} } from '../schema';\n` : ''}${body}`);
        imports.push(`import type { ${name} } from './${file}';`);
        parts.push(name);
      });
    }
    const heritage = ts.factory.createHeritageClause(ts.SyntaxKind.ExtendsKeyword, parts.map((p) => ts.factory.createExpressionWithTypeArguments(ts.factory.createIdentifier(p), undefined)));
    index.push(interfaceOf(kind, [], [heritage]));
  }
  files.set('schema.d.ts', `${header}${imports.join('\n')}\n${astToString(index as ts.Node[])}`);
  return files;
}
