import { describe, expect, it } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { NodeTypeInfo, Step } from '../src/graph/types';
import { localProblems, mapServerProblems } from '../src/pages/editor/problems';
import { StepPanel } from '../src/pages/editor/StepPanel';
import nodeTypes from './fixtures/editor-node-types.json';
import problem from './fixtures/editor-definition-422.json';

// the 422 of a definition with problems no form can foresee (a dangling next, two entry steps)
// and one bad config value, captured from the real server by web/scripts/editor-fixtures.ts
const TYPES = new Map((nodeTypes as unknown as NodeTypeInfo[]).map((t) => [t.type, t]));

describe('a 422 is mapped onto nodes and fields by step_id and pointer', () => {
  const mapped = mapServerProblems(problem.errors);

  it('puts each problem on its step and field, nothing left over', () => {
    expect(mapped.general).toEqual([]);
    expect(mapped.byStep.get('start')?.fields.next).toEqual([problem.errors[0]!.message]);
    expect(mapped.byStep.get('start')?.fields.type).toHaveLength(1);
    expect(mapped.byStep.get('hook')?.fields.type).toHaveLength(1);
    expect(mapped.byStep.get('call')?.config).toEqual([{ pointer: '/method', message: problem.errors[1]!.message }]);
  });

  it('does not read messages: the same problem reworded maps the same', () => {
    const reworded = mapServerProblems(problem.errors.map((e) => ({ ...e, message: 'x' })));
    expect([...reworded.byStep.keys()].sort()).toEqual([...mapped.byStep.keys()].sort());
    expect(reworded.byStep.get('call')?.config[0]?.pointer).toBe('/method');
  });

  it('keeps a problem without a step (no entry) for the list', () => {
    expect(mapServerProblems([{ field: 'steps', message: 'needs an entry', type: 'no_entry', pointer: '/steps' }]).general).toEqual(['needs an entry']);
  });

  it('shows the problems inline on the step panel: next, type and the config field', async () => {
    const steps: Step[] = [
      { id: 'start', type: 'trigger', config: {}, next: ['ghost'] },
      { id: 'call', type: 'http', config: { url: 'https://example.test/', method: 'GET' }, next: [] },
    ];
    const client = new QueryClient();
    const panel = (step: Step) =>
      render(
        <QueryClientProvider client={client}>
          <StepPanel step={step} steps={steps} type={TYPES.get(step.type)} local={localProblems(steps, TYPES).byStep.get(step.id)} server={mapped.byStep.get(step.id)} dispatch={() => undefined} />
        </QueryClientProvider>,
      );
    const start = panel(steps[0]!);
    expect(within(start.container.querySelector('#step-next-problems')!).getByText(problem.errors[0]!.message)).toBeInTheDocument();
    expect(screen.getByText('(no such step)')).toBeInTheDocument();
    start.unmount();
    const call = panel(steps[1]!);
    // the form is its own chunk, loaded with the first selection
    const field = await waitFor(() => {
      const el = call.container.querySelector('[id^="cfg-call"][id$="method"]');
      if (!el) throw new Error('the form has not loaded yet');
      return el;
    }, { timeout: 20_000 });
    const method = field.closest('.form-group')!;
    expect(within(method as HTMLElement).getByText(problem.errors[1]!.message)).toBeInTheDocument();
  });
});

describe('the editor checks a config before a save', () => {
  it('marks a step whose config breaks its schema, and an id the API would refuse', () => {
    const steps: Step[] = [
      { id: 'start', type: 'trigger', config: {}, next: ['call'] },
      { id: 'call', type: 'http', config: { method: 'FETCH' }, next: [] },
      { id: '9bad', type: 'end', config: {}, next: [] },
    ];
    const local = localProblems(steps, TYPES);
    expect(local.byStep.get('start')).toBeUndefined();
    expect(local.byStep.get('call')?.config.map((p) => p.pointer).sort()).toEqual(['/method', '/url']);
    expect(local.byStep.get('9bad')?.fields.id).toHaveLength(1);
  });
});
