import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type BodyOf } from '../../api/client';
import { keys, useTaskConstants } from '../../hooks/queries';
import { ProblemNote } from '../../ui/states';
import { deadlineToApi } from './dates';

/** The values of a template's `{{variables}}`, as the instantiate route documents them. */
export type TemplateVariables = NonNullable<BodyOf<'/api/v1/tasks/templates/{template_id}/instantiate', 'post'>['variables']>;

/** A new task, blank or from a template (its {{variables}} asked for). The server validates; its 422 is shown by field. */
export function TaskCreate({ workspaceId, onDone }: { workspaceId?: string; onDone(): void }): ReactNode {
  const constants = useTaskConstants();
  const queryClient = useQueryClient();
  const templates = useQuery({ queryKey: ['tasks', 'templates'], queryFn: () => unwrap(api.GET('/api/v1/tasks/templates', { params: { query: { limit: 200 } } })) });
  const [templateId, setTemplateId] = useState('');
  const [vars, setVars] = useState<TemplateVariables>({});
  const [f, setF] = useState({ title: '', description: '', priority: '', deadline: '' });
  const template = templates.data?.items.find((t) => t.id === templateId);
  const create = useMutation({
    mutationFn: () => {
      const common = { priority: f.priority ? Number(f.priority) : undefined, deadline: deadlineToApi(f.deadline), workspace_id: workspaceId ?? null };
      if (template) return unwrap(api.POST('/api/v1/tasks/templates/{template_id}/instantiate', { params: { path: { template_id: template.id } }, body: { variables: vars, overrides: common } }));
      return unwrap(api.POST('/api/v1/tasks', { body: { title: f.title, description: f.description, ...common } }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const variableNames = template?.variables ?? [];
  return (
    <form className="form card" onSubmit={submit} aria-label="New task">
      <label>From template
        <select value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
          <option value="">No template</option>
          {templates.data?.items.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
        </select>
      </label>
      {template ? (
        variableNames.map((name) => (
          <label key={name}>{name}<input value={String(vars[name] ?? '')} onChange={(e) => setVars({ ...vars, [name]: e.target.value })} /></label>
        ))
      ) : (
        <>
          <label>Title<input value={f.title} onChange={(e) => setF({ ...f, title: e.target.value })} /></label>
          <label>Description (Markdown)<textarea value={f.description} onChange={(e) => setF({ ...f, description: e.target.value })} /></label>
        </>
      )}
      <label>Priority
        <select value={f.priority} onChange={(e) => setF({ ...f, priority: e.target.value })}>
          <option value="">default</option>
          {constants.data?.priorities.map((p) => <option key={p.value} value={p.value}>{p.value} {p.label}</option>)}
        </select>
      </label>
      <label>Deadline<input type="datetime-local" value={f.deadline} onChange={(e) => setF({ ...f, deadline: e.target.value })} /></label>
      <ProblemNote error={create.error} />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>Create task</button>
        <button type="button" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}
