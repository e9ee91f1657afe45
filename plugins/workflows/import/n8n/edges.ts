import { list, record, type ImportWarning } from '../graph.ts';

/** One connection: output `output` of `from` into input `input` of `to`. */
export interface Edge {
  from: string;
  output: number;
  to: string;
  input: number;
}

/**
 * n8n's `connections: {<source name>: {main: [[{node, type, index}], ...]}}` as edges (outputs
 * by index; `index` is the target's input, which Merge reads). Other connection kinds (an AI
 * node's model or tools) are not data flow and are left out; edges to unknown nodes are dropped,
 * and anything that is not an edge is dropped with a warning.
 */
export function readEdges(raw: unknown, known: (name: string) => boolean, warnings: ImportWarning[]): { outEdges: Map<string, Edge[]>; inEdges: Map<string, Edge[]> } {
  const outEdges = new Map<string, Edge[]>();
  const inEdges = new Map<string, Edge[]>();
  for (const [from, kinds] of Object.entries(record(raw))) {
    if (!known(from)) continue;
    const main = record(kinds).main;
    let malformed = main !== undefined && !Array.isArray(main);
    list(main).forEach((targets, output) => {
      if (targets !== null && !Array.isArray(targets)) malformed = true;
      for (const edge of list(targets).map(record)) {
        if (typeof edge.node !== 'string') {
          malformed = true;
          continue;
        }
        if (!known(edge.node)) continue;
        const e: Edge = { from, output, to: edge.node, input: typeof edge.index === 'number' ? edge.index : 0 };
        outEdges.set(from, [...(outEdges.get(from) ?? []), e]);
        inEdges.set(e.to, [...(inEdges.get(e.to) ?? []), e]);
      }
    });
    if (malformed) warnings.push({ source: from, message: 'connections that are not lists of nodes were left out' });
  }
  return { outEdges, inEdges };
}
