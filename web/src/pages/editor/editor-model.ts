import { branchesOf, connect, disconnect, renameStep } from '../../graph/branches';
import { positionsOf } from '../../graph/layout';
import type { NodeTypeInfo, Step } from '../../graph/types';

/** What the editor holds: the definition being edited (saved only on Save) and the selection. */
export interface EditorState {
  steps: Step[];
  selected?: string;
  dirty: boolean;
}

export type EditorAction =
  | { kind: 'load'; steps: Step[] }
  | { kind: 'add'; type: NodeTypeInfo; position?: { x: number; y: number } }
  | { kind: 'select'; id?: string }
  | { kind: 'move'; id: string; position: { x: number; y: number } }
  | { kind: 'update'; id: string; patch: Partial<Pick<Step, 'name' | 'config'>> }
  | { kind: 'rename'; id: string; to: string }
  | { kind: 'set-next'; id: string; next: string[] }
  | { kind: 'connect'; source: string; output?: string | null; target: string }
  /** with `output`, only that branch lets go of `target` (the panel's per-branch choice set to none) */
  | { kind: 'disconnect'; source: string; output?: string | null; target: string }
  | { kind: 'remove'; id: string }
  | { kind: 'saved' };

/** Every step gets a position (dagre for those the API made without one), so the canvas stays put. */
export function placed(steps: Step[]): Step[] {
  const positions = positionsOf(steps);
  return steps.map((s) => (s.position ? s : { ...s, position: positions.get(s.id) }));
}

/** A fresh id for a new step of a type: `http`, `http_2`, ... */
export function freshId(steps: Step[], type: string): string {
  const base = type.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[^A-Za-z_]/, '_');
  const ids = new Set(steps.map((s) => s.id));
  if (!ids.has(base)) return base;
  let n = 2;
  while (ids.has(`${base}_${n}`)) n += 1;
  return `${base}_${n}`;
}

/** Defaults the schema declares at the top level (a new step starts valid where it can). */
function defaultsOf(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  return Object.fromEntries(Object.entries(props).filter(([, p]) => p && p.default !== undefined).map(([k, p]) => [k, p.default]));
}

function besideLast(steps: Step[]): { x: number; y: number } {
  const last = steps[steps.length - 1]?.position;
  return last ? { x: last.x + 260, y: last.y } : { x: 40, y: 40 };
}

export function editorReducer(types: Map<string, NodeTypeInfo>) {
  const branchesFor = (s: Step) => branchesOf(types.get(s.type));
  const change = (state: EditorState, steps: Step[], selected = state.selected): EditorState => ({ steps, selected, dirty: true });
  const map = (state: EditorState, id: string, f: (s: Step) => Step) => state.steps.map((s) => (s.id === id ? f(s) : s));
  return (state: EditorState, action: EditorAction): EditorState => {
    switch (action.kind) {
      case 'load':
        return { steps: placed(action.steps), selected: state.selected && action.steps.some((s) => s.id === state.selected) ? state.selected : undefined, dirty: false };
      case 'add': {
        const id = freshId(state.steps, action.type.type);
        const step: Step = { id, type: action.type.type, name: action.type.title ?? action.type.type, config: defaultsOf(action.type.config_schema), next: [], position: action.position ?? besideLast(state.steps) };
        return change(state, [...state.steps, step], id);
      }
      case 'select':
        return { ...state, selected: action.id };
      case 'move':
        return change(state, map(state, action.id, (s) => ({ ...s, position: { x: Math.round(action.position.x), y: Math.round(action.position.y) } })));
      case 'update': {
        const step = state.steps.find((s) => s.id === action.id);
        // rjsf reports its first render as a change: the same values are no edit
        if (!step || Object.entries(action.patch).every(([k, v]) => JSON.stringify(step[k as keyof Step]) === JSON.stringify(v))) return state;
        return change(state, map(state, action.id, (s) => ({ ...s, ...action.patch })));
      }
      case 'rename':
        if (action.to === action.id) return state;
        return change(state, renameStep(state.steps, action.id, action.to, branchesFor), state.selected === action.id ? action.to : state.selected);
      case 'set-next': {
        const step = state.steps.find((s) => s.id === action.id);
        if (!step) return state;
        let updated = step;
        for (const gone of step.next.filter((n) => !action.next.includes(n))) updated = disconnect(updated, gone, branchesFor(step));
        return change(state, map(state, action.id, () => ({ ...updated, next: action.next })));
      }
      case 'connect':
        if (action.source === action.target) return state;
        return change(state, map(state, action.source, (s) => connect(s, action.output, action.target, branchesFor(s))));
      case 'disconnect':
        return change(state, map(state, action.source, (s) => disconnect(s, action.target, branchesFor(s), action.output)));
      case 'remove': {
        const rest = state.steps.filter((s) => s.id !== action.id).map((s) => (s.next.includes(action.id) ? disconnect(s, action.id, branchesFor(s)) : s));
        return change(state, rest, state.selected === action.id ? undefined : state.selected);
      }
      case 'saved':
        return { ...state, dirty: false };
    }
  };
}
