import { useState, type FormEvent, type ReactNode } from 'react';
import { useWorkspaces } from '../../hooks/queries';
import { ProblemNote } from '../../ui/states';
import { useModelKeys } from './agent-queries';

/** What the agent routes take (create and update). */
export interface AgentFields {
  name: string;
  description: string;
  instructions: string;
  workspace_id: string | null;
  api_key_id: string | null;
  model: string | null;
  tools: string[];
  max_rounds: number;
  status: 'active' | 'disabled';
  is_master: boolean;
}

export const emptyAgent: AgentFields = { name: '', description: '', instructions: '', workspace_id: null, api_key_id: null, model: null, tools: [], max_rounds: 10, status: 'active', is_master: false };

/** Tool names typed as a list: commas or new lines between them, blanks dropped, no repeats. */
export function parseToolList(text: string): string[] {
  return [...new Set(text.split(/[,\n]/).map((t) => t.trim()).filter(Boolean))];
}

/** Create, edit and the generated draft's preview share this form; the server's 422 shows under it, field by field. */
export function AgentForm(props: { initial?: AgentFields; submitLabel: string; busy: boolean; error: unknown; onSubmit(fields: AgentFields): void; onCancel?(): void; name?: string }): ReactNode {
  const initial = props.initial ?? emptyAgent;
  const [fields, setFields] = useState<AgentFields>(initial);
  const [tools, setTools] = useState(initial.tools.join(', '));
  const [rounds, setRounds] = useState(String(initial.max_rounds));
  const workspaces = useWorkspaces();
  const keys = useModelKeys();
  const set = (patch: Partial<AgentFields>) => setFields({ ...fields, ...patch });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // a number the browser cannot read goes to the server as is, which names the field
    const maxRounds = rounds.trim() === '' ? Number.NaN : Number(rounds);
    props.onSubmit({ ...fields, tools: parseToolList(tools), max_rounds: Number.isFinite(maxRounds) ? maxRounds : (rounds as unknown as number) });
  };
  return (
    <form className="form" aria-label={props.name ?? 'Agent'} onSubmit={submit}>
      <label>
        Name
        <input value={fields.name} onChange={(e) => set({ name: e.target.value })} />
      </label>
      <label>
        Description
        <input value={fields.description} onChange={(e) => set({ description: e.target.value })} />
      </label>
      <label>
        Instructions (system prompt)
        <textarea rows={6} value={fields.instructions} onChange={(e) => set({ instructions: e.target.value })} />
      </label>
      <label>
        Workspace
        <select value={fields.workspace_id ?? ''} onChange={(e) => set({ workspace_id: e.target.value || null })}>
          <option value="">Entity-wide (every workspace)</option>
          {workspaces.data?.items.map((w) => (
            <option key={w.id} value={w.id}>{w.name}</option>
          ))}
        </select>
      </label>
      <label>
        Model key
        <select value={fields.api_key_id ?? ''} onChange={(e) => set({ api_key_id: e.target.value || null })}>
          <option value="">The entity's default key</option>
          {keys.data?.items.map((k) => (
            <option key={k.id} value={k.id}>{k.name} ({k.provider})</option>
          ))}
        </select>
      </label>
      <label>
        Model (empty: the key's default model)
        <input value={fields.model ?? ''} onChange={(e) => set({ model: e.target.value || null })} />
      </label>
      <label>
        Tools (names, separated by commas)
        <input value={tools} onChange={(e) => setTools(e.target.value)} placeholder="datetime, tasks, http_request" />
      </label>
      <label>
        Round cap
        <input inputMode="numeric" value={rounds} onChange={(e) => setRounds(e.target.value)} />
      </label>
      <label>
        Status
        <select value={fields.status} onChange={(e) => set({ status: e.target.value as AgentFields['status'] })}>
          <option value="active">active</option>
          <option value="disabled">disabled</option>
        </select>
      </label>
      <label className="inline">
        <input type="checkbox" checked={fields.is_master} onChange={(e) => set({ is_master: e.target.checked })} /> The workspace's master agent
      </label>
      <ProblemNote error={props.error} />
      <div className="actions">
        <button type="submit" disabled={props.busy}>{props.submitLabel}</button>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  );
}

/** An agent as the form edits it. */
export function fieldsOf(a: AgentFields): AgentFields {
  return { name: a.name, description: a.description, instructions: a.instructions, workspace_id: a.workspace_id, api_key_id: a.api_key_id, model: a.model, tools: a.tools, max_rounds: a.max_rounds, status: a.status, is_master: a.is_master };
}
