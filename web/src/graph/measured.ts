import { useCallback, useMemo, useRef, useState } from 'react';
import type { NodeChange } from '@xyflow/react';
import type { StepNode } from './to-flow';

type Size = { width: number; height: number };

/**
 * The canvas nodes with the sizes xyflow measured. toFlow rebuilds a step's node when its
 * inputs change (a status, a selection, a problem count), and a new node object without
 * `measured` is kept hidden by xyflow until measured again; its DOM box may keep its size, so
 * no resize ever measures it. The sizes reported through `keepSizes` (call it from
 * onNodesChange) are given back to rebuilt nodes; a node that did not change keeps its object
 * (the editor's drag relies on unchanged nodes not re-rendering).
 */
export function useMeasuredNodes(built: StepNode[]): { nodes: StepNode[]; keepSizes(changes: NodeChange[]): void } {
  const [sizes, setSizes] = useState<ReadonlyMap<string, Size>>(new Map());
  const withSize = useRef(new WeakMap<StepNode, StepNode>());
  const keepSizes = useCallback((changes: NodeChange[]) => {
    setSizes((old) => {
      const resized = changes.flatMap((c) => (c.type === 'dimensions' && c.dimensions && !sameSize(old.get(c.id), c.dimensions) ? [[c.id, c.dimensions] as const] : []));
      return resized.length ? new Map([...old, ...resized]) : old;
    });
  }, []);
  const nodes = useMemo(
    () =>
      built.map((n) => {
        const size = sizes.get(n.id);
        if (n.measured || !size) return n;
        const kept = withSize.current.get(n);
        if (kept && sameSize(kept.measured, size)) return kept;
        const node = { ...n, measured: size };
        withSize.current.set(n, node);
        return node;
      }),
    [built, sizes],
  );
  return { nodes, keepSizes };
}

function sameSize(a: { width?: number; height?: number } | undefined, b: Size): boolean {
  return a !== undefined && a.width === b.width && a.height === b.height;
}
