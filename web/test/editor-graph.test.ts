import { describe, expect, it } from 'vitest';
import { branchesOf } from '../src/graph/branches';
import { toFlow } from '../src/graph/to-flow';
import type { NodeTypeInfo, Step } from '../src/graph/types';
import { editorReducer, type EditorState } from '../src/pages/editor/editor-model';
import nodeTypes from './fixtures/editor-node-types.json';

const TYPES = new Map((nodeTypes as unknown as NodeTypeInfo[]).map((t) => [t.type, t]));
const reduce = editorReducer(TYPES);

describe('graph module', () => {
  it('gives one source handle per declared branch, paired with its config path', () => {
    expect(branchesOf(TYPES.get('condition'))).toEqual([{ output: 'true', path: ['branches', 'true'] }, { output: 'false', path: ['branches', 'false'] }]);
    expect(branchesOf(TYPES.get('switch'))).toEqual([{ output: 'case', path: ['cases', '*', 'next'] }, { output: 'default', path: ['default'] }]);
    expect(branchesOf(TYPES.get('http'))).toEqual([{ output: 'main' }]);
    expect(branchesOf(TYPES.get('end'))).toEqual([]);
  });

  it('lays out steps without a position (an API-made definition) and keeps saved ones', () => {
    const steps: Step[] = [
      { id: 'a', type: 'trigger', config: {}, next: ['b'] },
      { id: 'b', type: 'end', config: {}, next: [], position: { x: 999, y: 5 } },
    ];
    const { nodes, edges } = toFlow(steps, TYPES);
    expect(nodes.find((n) => n.id === 'b')?.position).toEqual({ x: 999, y: 5 });
    expect(Number.isFinite(nodes.find((n) => n.id === 'a')?.position.x)).toBe(true);
    expect(edges).toMatchObject([{ source: 'a', target: 'b', sourceHandle: 'main' }]);
  });

  it('connecting a condition branch sets next and the branch target; disconnecting clears both', () => {
    const start: EditorState = reduce({ steps: [], dirty: false }, {
      kind: 'load',
      steps: [
        { id: 'c', type: 'condition', config: { expression: '{{trigger.ok}}' }, next: [] },
        { id: 'yes', type: 'end', config: {}, next: [] },
        { id: 'no', type: 'end', config: {}, next: [] },
      ],
    });
    let s = reduce(start, { kind: 'connect', source: 'c', output: 'true', target: 'yes' });
    s = reduce(s, { kind: 'connect', source: 'c', output: 'false', target: 'no' });
    const c = s.steps.find((x) => x.id === 'c')!;
    expect(c.next).toEqual(['yes', 'no']);
    expect(c.config.branches).toEqual({ true: 'yes', false: 'no' });
    expect(toFlow(s.steps, TYPES).edges.map((e) => [e.target, e.sourceHandle])).toEqual([['yes', 'true'], ['no', 'false']]);
    s = reduce(s, { kind: 'disconnect', source: 'c', target: 'yes' });
    expect(s.steps.find((x) => x.id === 'c')!.config.branches).toEqual({ false: 'no' });
    expect(s.dirty).toBe(true);
  });

  it('renaming a step follows it into next and branch targets; removing one drops the edges to it', () => {
    let s = reduce({ steps: [], dirty: false }, { kind: 'load', steps: [{ id: 'c', type: 'condition', config: { expression: 'x', branches: { true: 'yes' } }, next: ['yes'] }, { id: 'yes', type: 'end', config: {}, next: [] }] });
    s = reduce(s, { kind: 'rename', id: 'yes', to: 'done' });
    expect(s.steps[0]).toMatchObject({ next: ['done'], config: { branches: { true: 'done' } } });
    s = reduce(s, { kind: 'remove', id: 'done' });
    expect(s.steps).toHaveLength(1);
    expect(s.steps[0]).toMatchObject({ next: [], config: { branches: {} } });
  });

  it('adds a step with a fresh id and its schema defaults, selected', () => {
    let s = reduce({ steps: [], dirty: false }, { kind: 'add', type: TYPES.get('respond')! });
    s = reduce(s, { kind: 'add', type: TYPES.get('respond')! });
    expect(s.steps.map((x) => x.id)).toEqual(['respond', 'respond_2']);
    expect(s.selected).toBe('respond_2');
  });
});
