import { MarkerType, type Edge, type Node } from '@xyflow/react';
import { branchesOf, branchOfEdge, type Branch } from './branches';
import { positionsOf } from './layout';
import type { NodeTypeInfo, Step } from './types';

/** What a step node draws: its step, its type's handles, and what the page marks on it. */
export interface StepNodeData extends Record<string, unknown> {
  step: Step;
  title: string;
  branches: Branch[];
  entry: boolean;
  /** problems on the step (editor): the node is marked and says how many */
  problems?: number;
  /** the step's status in a run (run view) */
  status?: string;
}

export type StepNode = Node<StepNodeData, 'step'>;

export interface FlowOptions {
  selected?: string;
  problemsOf?: (stepId: string) => number;
  statusOf?: (stepId: string) => string | undefined;
}

/** What a step's node and edges were built from: the same inputs give back the same objects. */
interface Built {
  step: Step;
  type: NodeTypeInfo | undefined;
  selected: boolean;
  problems?: number;
  status?: string;
  x: number;
  y: number;
  ids: Set<string>;
  node: StepNode;
  edges: Edge[];
}

export type FlowCache = Map<string, Built>;

export function newFlowCache(): FlowCache {
  return new Map();
}

/**
 * A definition as xyflow nodes and edges: one edge per `next` id, leaving by the branch whose
 * config names it. With a cache, a step whose inputs did not change keeps its node and edge
 * objects, so dragging one node of a hundred re-renders that node and its edges only (before:
 * every node, and every edge label measured again with getBBox: frames of 100 ms and more).
 */
export function toFlow(steps: Step[], types: Map<string, NodeTypeInfo>, opts: FlowOptions = {}, cache: FlowCache = new Map()): { nodes: StepNode[]; edges: Edge[] } {
  const positions = positionsOf(steps);
  const ids = new Set(steps.map((s) => s.id));
  const nodes: StepNode[] = [];
  const edges: Edge[] = [];
  const seen = new Set<string>();
  for (const step of steps) {
    const type = types.get(step.type);
    const position = positions.get(step.id) ?? { x: 0, y: 0 };
    const inputs = { step, type, selected: opts.selected === step.id, problems: opts.problemsOf?.(step.id), status: opts.statusOf?.(step.id), x: position.x, y: position.y, ids };
    const old = cache.get(step.id);
    const sameNode = old && old.step === step && old.type === type && old.selected === inputs.selected && old.problems === inputs.problems && old.status === inputs.status && old.x === inputs.x && old.y === inputs.y;
    // a move gives a new step object with the same next and config: its edges stay as they were
    const sameEdges = old && old.step.next === step.next && old.step.config === step.config && old.step.id === step.id && old.type === type && sameSet(old.ids, ids);
    const built: Built = {
      ...inputs,
      node: sameNode ? old.node : nodeOf(step, type, position, inputs),
      edges: sameEdges ? old.edges : edgesOf(step, type, ids),
    };
    cache.set(step.id, built);
    seen.add(step.id);
    nodes.push(built.node);
    edges.push(...built.edges);
  }
  for (const id of [...cache.keys()]) if (!seen.has(id)) cache.delete(id);
  return { nodes, edges };
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function nodeOf(step: Step, type: NodeTypeInfo | undefined, position: { x: number; y: number }, opts: { selected: boolean; problems?: number; status?: string }): StepNode {
  return {
    id: step.id,
    type: 'step',
    position,
    selected: opts.selected,
    ariaLabel: `${step.name || step.id} (${type?.title ?? step.type})`,
    // a named group also where nodes are not focusable (run view): a label needs a role
    ariaRole: 'group',
    data: { step, title: type?.title ?? step.type, branches: branchesOf(type), entry: Boolean(type?.entry), problems: opts.problems, status: opts.status },
  };
}

function edgesOf(step: Step, type: NodeTypeInfo | undefined, ids: Set<string>): Edge[] {
  const edges: Edge[] = [];
  const branches = branchesOf(type);
  for (const target of step.next) {
    if (!ids.has(target)) continue;
    const output = branchOfEdge(step, target, branches);
    const labelled = branches.length > 1 && output;
    edges.push({
      id: `${step.id}->${target}`,
      source: step.id,
      target,
      sourceHandle: output ?? null,
      ...(labelled ? { label: output } : {}),
      markerEnd: { type: MarkerType.ArrowClosed },
      ariaLabel: `${step.id} ${labelled ? `(${output}) ` : ''}to ${target}`,
    });
  }
  return edges;
}
