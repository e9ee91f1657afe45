import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys } from '../../hooks/queries';
import { Empty, ProblemNote, QueryView } from '../../ui/states';

export default function WorkflowsPage(): ReactNode {
  const list = useQuery({ queryKey: keys.workflows, queryFn: () => unwrap(api.GET('/api/v1/workflows', { params: { query: { limit: 200 } } })) });
  const [name, setName] = useState('');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = useMutation({
    // a definition needs exactly one entry node: a new one starts with a manual trigger
    mutationFn: () => unwrap(api.POST('/api/v1/workflows', { body: { name, trigger_type: 'manual', steps: [{ id: 'start', type: 'trigger', name: 'Start', config: {}, next: [] }] } })),
    onSuccess: (wf) => {
      void queryClient.invalidateQueries({ queryKey: keys.workflows });
      navigate(`/workflows/${wf.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section>
      <h1>Workflows</h1>
      <form className="form inline-form" onSubmit={submit} aria-label="New workflow">
        <label>Name<input value={name} onChange={(e) => setName(e.target.value)} /></label>
        <button type="submit" disabled={create.isPending}>Create and edit</button>
        <ProblemNote error={create.error} />
      </form>
      <QueryView query={list} what="workflows">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No workflows yet: name one above to start.</Empty>
          ) : (
            <table>
              <thead><tr><th scope="col">Name</th><th scope="col">Trigger</th><th scope="col">Steps</th><th scope="col">Version</th><th scope="col">Updated</th></tr></thead>
              <tbody>
                {data.items.map((w) => (
                  <tr key={w.id}>
                    <td><Link to={`/workflows/${w.id}`}>{w.name}</Link></td>
                    <td>{w.trigger_type}</td>
                    <td>{w.steps.length}</td>
                    <td>{w.version}</td>
                    <td>{new Date(w.updated_at).toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </section>
  );
}
