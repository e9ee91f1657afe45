import { lazy, memo, Suspense, useEffect, useState, type ReactNode } from 'react';
import { branchesOf, targetsOf, type Branch } from '../../graph/branches';
import { STEP_ID_PATTERN, type NodeTypeInfo, type Step } from '../../graph/types';
import { useAnnounce } from '../../ui/announcer';
import type { EditorAction } from './editor-model';
import type { StepProblems } from './problems';
import { RunNode } from './RunNode';
import { Loading } from '../../ui/states';

// rjsf is most of the editor's code and no node is selected when the page opens: it loads with the first selection
const ConfigForm = lazy(() => import('../../forms/ConfigForm'));

interface Props {
  step: Step;
  steps: Step[];
  type: NodeTypeInfo | undefined;
  local: StepProblems | undefined;
  server: StepProblems | undefined;
  dispatch: (a: EditorAction) => void;
}

function FieldProblems({ id, list }: { id: string; list: string[] | undefined }): ReactNode {
  if (!list?.length) return null;
  return <ul id={id} className="field-error">{list.map((m) => <li key={m}>{m}</li>)}</ul>;
}

/** The selected step: name, id, `next` (the keyboard's way to connect), its generated config form and "Run this node". */
export const StepPanel = memo(StepPanelImpl, samePanel);

/** nothing the panel shows changed: dragging the selected node (a new position only) re-renders no form */
function samePanel(a: Props, b: Props): boolean {
  const step = (x: Step, y: Step) => x === y || (x.id === y.id && x.name === y.name && x.type === y.type && x.config === y.config && x.next === y.next);
  return (
    step(a.step, b.step) &&
    a.type === b.type &&
    a.dispatch === b.dispatch &&
    a.steps.length === b.steps.length &&
    a.steps.every((s, i) => s.id === b.steps[i]!.id && s.name === b.steps[i]!.name) &&
    JSON.stringify([a.local, a.server]) === JSON.stringify([b.local, b.server])
  );
}

/**
 * A branching step's targets, one labelled select per declared branch: choosing a step is the
 * reducer's `connect` from that branch's handle (dragging does the same), so `next` and the
 * branch's config path change together; "none" lets go of that branch's target only. A branch
 * holding a list (`cases.*.next`) gets a select that adds one item per choice, as a drag does.
 */
function BranchTargets({ step, branches, others, dispatch }: { step: Step; branches: Branch[]; others: Step[]; dispatch: (a: EditorAction) => void }): ReactNode {
  const announce = useAnnounce();
  const label = (t: string) => {
    const s = others.find((o) => o.id === t);
    return s ? `${s.name || s.id} (${s.id})` : `${t} (no such step)`;
  };
  return (
    <div className="branch-targets">
      {branches.map((b) => {
        const id = `branch-${step.id}-${b.output}`;
        const current = targetsOf(step, b);
        if (b.path?.includes('*')) {
          return (
            <div key={b.output} className="branch-target">
              <label htmlFor={id}>Add a {b.output} to</label>
              <select
                id={id}
                value=""
                onChange={(e) => {
                  const target = e.target.value;
                  if (!target) return;
                  dispatch({ kind: 'connect', source: step.id, output: b.output, target });
                  announce(`${step.id}: a new ${b.output} goes to ${target}.`);
                }}
              >
                <option value="">Choose a step…</option>
                {others.map((o) => <option key={o.id} value={o.id}>{label(o.id)}</option>)}
              </select>
              {current.length > 0 && <span className="muted">{b.output}: {current.join(', ')}</span>}
            </div>
          );
        }
        const value = current[0] ?? '';
        return (
          <div key={b.output} className="branch-target">
            <label htmlFor={id}>Branch {b.output}</label>
            <select
              id={id}
              value={value}
              onChange={(e) => {
                const target = e.target.value;
                if (target) {
                  dispatch({ kind: 'connect', source: step.id, output: b.output, target });
                  announce(`${step.id}: branch ${b.output} now goes to ${target}.`);
                } else if (value) {
                  dispatch({ kind: 'disconnect', source: step.id, output: b.output, target: value });
                  announce(`${step.id}: branch ${b.output} goes nowhere now.`);
                }
              }}
            >
              <option value="">None</option>
              {others.map((o) => <option key={o.id} value={o.id}>{label(o.id)}</option>)}
              {value && !others.some((o) => o.id === value) && <option value={value}>{label(value)}</option>}
            </select>
          </div>
        );
      })}
    </div>
  );
}

function StepPanelImpl({ step, steps, type, local, server, dispatch }: Props): ReactNode {
  const [id, setId] = useState(step.id);
  useEffect(() => setId(step.id), [step.id]);
  const idOk = STEP_ID_PATTERN.test(id) && !steps.some((s) => s.id === id && s.id !== step.id);
  const fieldList = (f: 'id' | 'type' | 'next' | 'name' | 'step') => [...(local?.fields[f] ?? []), ...(server?.fields[f] ?? [])];
  const others = steps.filter((s) => s.id !== step.id);
  const branches = branchesOf(type);
  const branching = Boolean(type) && (branches.length > 1 || branches.some((b) => b.path));
  return (
    <aside className="step-panel" aria-labelledby="step-panel-title">
      <h2 id="step-panel-title">{type?.title ?? step.type} <span className="muted">step</span></h2>
      {type?.description && <p className="muted">{type.description}</p>}
      <FieldProblems id="step-problems" list={fieldList('step')} />
      <label>
        Name
        <input value={step.name ?? ''} maxLength={200} onChange={(e) => dispatch({ kind: 'update', id: step.id, patch: { name: e.target.value } })} />
      </label>
      <label>
        Id
        <input
          value={id}
          aria-invalid={!idOk || fieldList('id').length > 0}
          aria-describedby="step-id-problems"
          onChange={(e) => setId(e.target.value)}
          onBlur={() => (idOk ? dispatch({ kind: 'rename', id: step.id, to: id }) : undefined)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && idOk) dispatch({ kind: 'rename', id: step.id, to: id });
          }}
        />
      </label>
      <FieldProblems id="step-id-problems" list={idOk ? fieldList('id') : ['Letters, digits, _ and - only, starting with a letter or _, and unique.', ...fieldList('id')]} />
      <FieldProblems id="step-type-problems" list={fieldList('type')} />
      <fieldset className="next-field" aria-describedby="step-next-problems">
        <legend>Next steps</legend>
        {others.length === 0 && <p className="muted">No other step yet.</p>}
        {branching && others.length > 0 && <BranchTargets step={step} branches={branches} others={others} dispatch={dispatch} />}
        {others.map((o) => (
          <label key={o.id} className="inline">
            <input
              type="checkbox"
              checked={step.next.includes(o.id)}
              onChange={(e) => dispatch(e.target.checked ? { kind: 'connect', source: step.id, target: o.id } : { kind: 'disconnect', source: step.id, target: o.id })}
            />
            {o.name || o.id} <span className="muted">({o.id})</span>
          </label>
        ))}
        {step.next.filter((n) => !steps.some((s) => s.id === n)).map((n) => (
          <label key={n} className="inline">
            <input type="checkbox" checked onChange={() => dispatch({ kind: 'disconnect', source: step.id, target: n })} />
            {n} <span className="muted">(no such step)</span>
          </label>
        ))}
      </fieldset>
      <FieldProblems id="step-next-problems" list={fieldList('next')} />
      {type && (
        <section aria-label="Config">
          <h3>Config</h3>
          <Suspense fallback={<Loading label="Loading the form" />}>
            <ConfigForm
              key={step.id}
              idPrefix={`cfg-${step.id}`}
              schema={type.config_schema}
              config={step.config}
              serverProblems={server?.config}
              onChange={(config) => dispatch({ kind: 'update', id: step.id, patch: { config } })}
            />
          </Suspense>
          <RunNode step={step} blocked={Boolean(local?.config.length)} />
        </section>
      )}
      <button type="button" className="danger" onClick={() => dispatch({ kind: 'remove', id: step.id })}>Delete step</button>
    </aside>
  );
}
