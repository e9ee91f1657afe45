import { useState, type FormEvent, type ReactNode } from 'react';
import { useWorkspaces } from '../../hooks/queries';
import { ProblemNote } from '../../ui/states';
import { useAgents } from '../agents/agent-queries';

export interface MetricFields { name: string; target: string; unit: string; direction: 'increase' | 'decrease' }
export interface GoalFields { workspace_id: string; title: string; objective: string; agent_id: string; due_at: string; metrics: MetricFields[] }

/** The create body: blanks left out, a metric row with no name dropped; a target the browser cannot read goes as typed (the server names it). */
export function goalBody(f: GoalFields) {
  const metrics = f.metrics
    .filter((m) => m.name.trim())
    .map((m) => ({ name: m.name.trim(), target: (m.target.trim() !== '' && Number.isFinite(Number(m.target)) ? Number(m.target) : m.target) as number, direction: m.direction, ...(m.unit.trim() ? { unit: m.unit.trim() } : {}) }));
  return {
    workspace_id: f.workspace_id,
    objective: f.objective,
    ...(f.title.trim() ? { title: f.title.trim() } : {}),
    ...(f.agent_id ? { agent_id: f.agent_id } : {}),
    ...(f.due_at ? { due_at: new Date(f.due_at).toISOString() } : {}),
    ...(metrics.length ? { metrics } : {}),
  };
}

const NO_METRIC: MetricFields = { name: '', target: '', unit: '', direction: 'increase' };

export function GoalForm(props: { workspaceId?: string; busy: boolean; error: unknown; onSubmit(f: GoalFields): void; onCancel(): void }): ReactNode {
  const [f, setF] = useState<GoalFields>({ workspace_id: props.workspaceId ?? '', title: '', objective: '', agent_id: '', due_at: '', metrics: [NO_METRIC] });
  const workspaces = useWorkspaces();
  const agents = useAgents(f.workspace_id || undefined);
  const setMetric = (i: number, patch: Partial<MetricFields>) => setF({ ...f, metrics: f.metrics.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onSubmit(f);
  };
  return (
    <form className="form card" aria-label="New goal" onSubmit={submit}>
      <label>
        Workspace
        <select value={f.workspace_id} onChange={(e) => setF({ ...f, workspace_id: e.target.value, agent_id: '' })}>
          <option value="">Choose a workspace</option>
          {workspaces.data?.items.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
        </select>
      </label>
      <label>Title (empty: the objective's first line)<input value={f.title} onChange={(e) => setF({ ...f, title: e.target.value })} /></label>
      <label>Objective<textarea rows={3} value={f.objective} onChange={(e) => setF({ ...f, objective: e.target.value })} /></label>
      <label>
        Owning agent
        <select value={f.agent_id} onChange={(e) => setF({ ...f, agent_id: e.target.value })}>
          <option value="">None</option>
          {agents.data?.items.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
        </select>
      </label>
      <label>Due<input type="datetime-local" value={f.due_at} onChange={(e) => setF({ ...f, due_at: e.target.value })} /></label>
      <fieldset>
        <legend>Metrics</legend>
        {f.metrics.map((m, i) => (
          <div key={i} className="inline-form">
            <label>Metric {i + 1} name<input value={m.name} onChange={(e) => setMetric(i, { name: e.target.value })} /></label>
            <label>Target<input inputMode="decimal" value={m.target} onChange={(e) => setMetric(i, { target: e.target.value })} /></label>
            <label>Unit<input value={m.unit} onChange={(e) => setMetric(i, { unit: e.target.value })} /></label>
            <label>
              Met when
              <select value={m.direction} onChange={(e) => setMetric(i, { direction: e.target.value as MetricFields['direction'] })}>
                <option value="increase">at or above target</option>
                <option value="decrease">at or below target</option>
              </select>
            </label>
          </div>
        ))}
        <button type="button" onClick={() => setF({ ...f, metrics: [...f.metrics, NO_METRIC] })} disabled={f.metrics.length >= 20}>Add a metric</button>
      </fieldset>
      <ProblemNote error={props.error} />
      <div className="actions">
        <button type="submit" disabled={props.busy}>Create goal</button>
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </form>
  );
}
