import { describe, expect, it } from 'vitest';
import { useMemo, useReducer, type ReactNode } from 'react';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { NodeTypeInfo, Step } from '../src/graph/types';
import { editorReducer, type EditorState } from '../src/pages/editor/editor-model';
import { StepPanel } from '../src/pages/editor/StepPanel';
import { AnnouncerProvider } from '../src/ui/announcer';
import nodeTypes from './fixtures/editor-node-types.json';

// Issue 19 items 8 and 10: a branching step is wired from the keyboard, one labelled choice per
// declared branch, and the result is what dragging from that branch's handle gives.
const TYPES = new Map((nodeTypes as unknown as NodeTypeInfo[]).map((t) => [t.type, t]));
const reduce = editorReducer(TYPES);

const STEPS: Step[] = [
  { id: 'c', type: 'condition', name: 'Check', config: { expression: '{{trigger.ok}}' }, next: [] },
  { id: 'yes', type: 'end', name: 'Yes', config: {}, next: [] },
  { id: 'no', type: 'end', name: 'No', config: {}, next: [] },
];

/** the panel of one step over the real reducer; `seen` gets every state */
function Harness({ steps, id, seen }: { steps: Step[]; id: string; seen: (s: EditorState) => void }): ReactNode {
  const client = useMemo(() => new QueryClient(), []);
  const [state, dispatch] = useReducer(reduce, undefined, () => reduce({ steps: [], dirty: false }, { kind: 'load', steps }));
  seen(state);
  const step = state.steps.find((s) => s.id === id)!;
  return (
    <QueryClientProvider client={client}>
      <StepPanel step={step} steps={state.steps} type={TYPES.get(step.type)} local={undefined} server={undefined} dispatch={dispatch} />
    </QueryClientProvider>
  );
}

function mount(steps: Step[], id: string): { last: () => EditorState } {
  let latest: EditorState | undefined;
  render(
    <AnnouncerProvider>
      <Harness steps={steps} id={id} seen={(s) => (latest = s)} />
    </AnnouncerProvider>,
  );
  return { last: () => latest! };
}

const dragged = (steps: Step[], ...edges: [string, string, string][]): EditorState =>
  edges.reduce((s, [source, output, target]) => reduce(s, { kind: 'connect', source, output, target }), reduce({ steps: [], dirty: false }, { kind: 'load', steps }));

describe('Next steps offers a choice per declared branch', () => {
  it('wires a condition\'s true and false branches with two labelled selects, as dragging from the handles does, and says so', () => {
    const { last } = mount(STEPS, 'c');
    const group = screen.getByRole('group', { name: 'Next steps' });
    const yes = within(group).getByRole('combobox', { name: 'Branch true' });
    const no = within(group).getByRole('combobox', { name: 'Branch false' });
    expect(yes).toHaveValue('');
    fireEvent.change(yes, { target: { value: 'yes' } });
    expect(screen.getByTestId('announcer')).toHaveTextContent('c: branch true now goes to yes.');
    fireEvent.change(no, { target: { value: 'no' } });
    expect(screen.getByTestId('announcer')).toHaveTextContent('c: branch false now goes to no.');

    const c = last().steps.find((s) => s.id === 'c')!;
    expect(c.next).toEqual(['yes', 'no']);
    expect(c.config).toEqual({ expression: '{{trigger.ok}}', branches: { true: 'yes', false: 'no' } });
    expect(last().steps).toEqual(dragged(STEPS, ['c', 'true', 'yes'], ['c', 'false', 'no']).steps);
    expect(within(group).getByRole('combobox', { name: 'Branch true' })).toHaveValue('yes');
    // the ticks list both targets
    expect(within(group).getByRole('checkbox', { name: /\(yes\)/ })).toBeChecked();
    expect(within(group).getByRole('checkbox', { name: /\(no\)/ })).toBeChecked();

    // another target for a branch replaces the old one in next too; None lets go of that branch only
    fireEvent.change(within(group).getByRole('combobox', { name: 'Branch true' }), { target: { value: 'no' } });
    expect(last().steps[0]).toMatchObject({ next: ['no'], config: { branches: { true: 'no', false: 'no' } } });
    fireEvent.change(within(group).getByRole('combobox', { name: 'Branch false' }), { target: { value: '' } });
    expect(last().steps[0]).toMatchObject({ next: ['no'], config: { branches: { true: 'no' } } });
    expect(screen.getByTestId('announcer')).toHaveTextContent('c: branch false goes nowhere now.');
  });

  it('adds a switch case per choice and sets its default, as dragging from those handles does', () => {
    const steps: Step[] = [
      { id: 's', type: 'switch', config: { value: 'x' }, next: [] },
      { id: 'a', type: 'end', config: {}, next: [] },
      { id: 'b', type: 'end', config: {}, next: [] },
    ];
    const { last } = mount(steps, 's');
    fireEvent.change(screen.getByRole('combobox', { name: 'Add a case to' }), { target: { value: 'a' } });
    fireEvent.change(screen.getByRole('combobox', { name: 'Branch default' }), { target: { value: 'b' } });
    expect(last().steps).toEqual(dragged(steps, ['s', 'case', 'a'], ['s', 'default', 'b']).steps);
    expect(screen.getByRole('combobox', { name: 'Add a case to' })).toHaveValue('');
  });

  it('shows no branch choice for a step with one plain output', () => {
    mount([{ id: 'h', type: 'http', config: {}, next: [] }, ...STEPS], 'h');
    expect(screen.queryByRole('combobox', { name: /^Branch/ })).toBeNull();
    expect(screen.getByRole('checkbox', { name: /\(c\)/ })).toBeInTheDocument();
  });
});

describe('disconnecting one branch', () => {
  it('keeps a target in next while another branch still names it', () => {
    let s = dragged(STEPS, ['c', 'true', 'yes'], ['c', 'false', 'yes']);
    s = reduce(s, { kind: 'disconnect', source: 'c', output: 'true', target: 'yes' });
    expect(s.steps[0]).toMatchObject({ next: ['yes'], config: { branches: { false: 'yes' } } });
    s = reduce(s, { kind: 'disconnect', source: 'c', output: 'false', target: 'yes' });
    expect(s.steps[0]).toMatchObject({ next: [], config: { branches: {} } });
  });
});
