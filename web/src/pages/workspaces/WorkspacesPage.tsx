import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type ResponseOf } from '../../api/client';
import { keys, useWorkspaces } from '../../hooks/queries';
import { MutationConfirm } from '../../ui/MutationConfirm';
import { Empty, QueryView } from '../../ui/states';
import { WorkspaceForm, type WorkspaceFields } from './WorkspaceForm';

type Workspace = ResponseOf<'/api/v1/workspaces/{workspace_id}', 'get'>;

export function WorkspacesPage(): ReactNode {
  const [showArchived, setShowArchived] = useState(false);
  const [creating, setCreating] = useState(false);
  const list = useWorkspaces(showArchived);
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (f: WorkspaceFields) => unwrap(api.POST('/api/v1/workspaces', { body: f })),
    onSuccess: () => {
      setCreating(false);
      void queryClient.invalidateQueries({ queryKey: keys.workspaces });
    },
  });
  return (
    <section>
      <div className="page-head">
        <h1>Workspaces</h1>
        <button type="button" onClick={() => setCreating(true)}>New workspace</button>
      </div>
      {creating && (
        <div className="card">
          <h2>New workspace</h2>
          <WorkspaceForm submitLabel="Create" busy={create.isPending} error={create.error} onSubmit={(f) => create.mutate(f)} onCancel={() => setCreating(false)} />
        </div>
      )}
      <label className="inline">
        <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} /> Show archived
      </label>
      <QueryView query={list} what="workspaces">
        {(data) =>
          data.items.length === 0 ? (
            <Empty action={<button type="button" onClick={() => setCreating(true)}>Create the first workspace</button>}>No workspaces yet.</Empty>
          ) : (
            <ul className="cards">
              {data.items.map((w) => (
                <WorkspaceRow key={w.id} workspace={w as Workspace} />
              ))}
            </ul>
          )
        }
      </QueryView>
    </section>
  );
}

function WorkspaceRow({ workspace: w }: { workspace: Omit<Workspace, 'dashboard'> }): ReactNode {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const done = () => void queryClient.invalidateQueries({ queryKey: keys.workspaces });
  const update = useMutation({
    mutationFn: (f: WorkspaceFields) => unwrap(api.PUT('/api/v1/workspaces/{workspace_id}', { params: { path: { workspace_id: w.id } }, body: f })),
    onSuccess: () => {
      setEditing(false);
      done();
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/workspaces/{workspace_id}', { params: { path: { workspace_id: w.id } } })),
    onSuccess: done,
  });
  const archived = Boolean(w.archived_at);
  return (
    <li className="card">
      {editing ? (
        <WorkspaceForm initial={{ name: w.name, description: w.description, category: w.category }} submitLabel="Save" busy={update.isPending} error={update.error} onSubmit={(f) => update.mutate(f)} onCancel={() => setEditing(false)} />
      ) : (
        <>
          <h2>
            <Link to={`/workspaces/${w.id}`}>{w.name}</Link> {archived && <span className="badge">archived</span>} {w.status === 'paused' && <span className="badge">paused</span>}
          </h2>
          {w.category && <p className="muted">{w.category}</p>}
          {w.description && <p>{w.description}</p>}
          <div className="actions">
            {!archived && <button type="button" onClick={() => setEditing(true)}>Edit</button>}
            {!archived && <button type="button" onClick={() => remove.mutate()}>Archive</button>}
            {archived && (
              <button type="button" className="danger" aria-haspopup="dialog" onClick={() => { remove.reset(); setConfirming(true); }}>
                Delete for good
              </button>
            )}
          </div>
          <MutationConfirm
            title={`Delete the workspace "${w.name}"?`}
            confirmLabel="Delete this workspace"
            typeToConfirm={w.name}
            mutation={remove}
            open={confirming}
            onClose={() => setConfirming(false)}
          >
            <p>The workspace and everything in it are deleted for good. This cannot be undone.</p>
          </MutationConfirm>
        </>
      )}
    </li>
  );
}
