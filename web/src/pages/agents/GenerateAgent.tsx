import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { ProblemNote } from '../../ui/states';
import { AgentForm, emptyAgent, type AgentFields } from './AgentForm';

/** The generated draft as form fields; anything of the wrong type keeps the form's default. */
export function draftToFields(draft: unknown, workspaceId: string | undefined): AgentFields {
  const d = (draft && typeof draft === 'object' ? draft : {}) as Record<string, unknown>;
  const text = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
  return {
    ...emptyAgent,
    name: text(d.name, ''),
    description: text(d.description, ''),
    instructions: text(d.instructions, ''),
    tools: Array.isArray(d.tools) ? d.tools.filter((t): t is string => typeof t === 'string') : [],
    max_rounds: typeof d.max_rounds === 'number' && Number.isInteger(d.max_rounds) ? d.max_rounds : emptyAgent.max_rounds,
    workspace_id: workspaceId ?? null,
  };
}

/**
 * An agent drafted by the model from a description (`POST /agents/generate`, nothing stored),
 * shown in the agent form to check and change before it is saved with `POST /agents`.
 */
export function GenerateAgent(props: { saving: boolean; saveError: unknown; onSave(fields: AgentFields): void; onCancel(): void }): ReactNode {
  const { workspaceId } = useCurrentWorkspace();
  const [prompt, setPrompt] = useState('');
  const generate = useMutation({
    mutationFn: (p: string) => unwrap(api.POST('/api/v1/agents/generate', { body: { prompt: p, save: false, ...(workspaceId ? { workspace_id: workspaceId } : {}) } })),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    generate.mutate(prompt);
  };
  const draft = generate.data && 'draft' in generate.data ? draftToFields(generate.data.draft, workspaceId) : undefined;
  return (
    <div className="card">
      <h2>Generate an agent</h2>
      <form className="form" aria-label="Generate an agent" onSubmit={submit}>
        <label>
          What should the agent do?
          <textarea rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
        </label>
        <ProblemNote error={generate.error} />
        <div className="actions">
          <button type="submit" disabled={generate.isPending}>{generate.isPending ? 'Generating…' : 'Generate a draft'}</button>
          <button type="button" onClick={props.onCancel}>Cancel</button>
        </div>
      </form>
      {draft && (
        <section aria-label="Draft preview">
          <h3>Preview: check it, change it, then save</h3>
          <AgentForm key={JSON.stringify(draft)} name="Generated agent" initial={draft} submitLabel="Save agent" busy={props.saving} error={props.saveError} onSubmit={props.onSave} />
        </section>
      )}
    </div>
  );
}
