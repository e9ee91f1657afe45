import dagre from '@dagrejs/dagre';
import type { Step } from './types';

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 72;

/**
 * Positions for every step: a saved `position` is kept; a definition made through the API
 * (steps without one) is laid out left to right by dagre, as one graph so the new ones fit.
 */
export function positionsOf(steps: Step[]): Map<string, { x: number; y: number }> {
  const out = new Map<string, { x: number; y: number }>();
  if (steps.every((s) => s.position)) {
    for (const s of steps) out.set(s.id, s.position!);
    return out;
  }
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 80, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(steps.map((s) => s.id));
  for (const s of steps) g.setNode(s.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const s of steps) for (const n of s.next) if (ids.has(n) && n !== s.id) g.setEdge(s.id, n);
  dagre.layout(g);
  for (const s of steps) {
    const n = g.node(s.id);
    out.set(s.id, s.position ?? { x: Math.round(n.x - NODE_WIDTH / 2), y: Math.round(n.y - NODE_HEIGHT / 2) });
  }
  return out;
}
