import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys, useWorkspaces } from '../../hooks/queries';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { Empty, ProblemNote, QueryView } from '../../ui/states';
import { emptyBinding, fromBinding, describeTrigger, type Binding } from './binding-form';
import { useBindingMutations } from './binding-save';
import { BindingForm } from './BindingForm';
import { WebhookSecret } from './WebhookSecret';

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Workflow bindings of one workspace: create, edit, enable, rotate a webhook token, run, delete. */
export default function BindingsPage(): ReactNode {
  const [params, setParams] = useSearchParams();
  const { workspaceId: current } = useCurrentWorkspace();
  const workspaces = useWorkspaces();
  const workspaceId = params.get('workspace') || current || workspaces.data?.items[0]?.id || '';
  return (
    <section>
      <div className="page-head">
        <h1>Bindings</h1>
        <label>Workspace
          <select value={workspaceId} onChange={(e) => setParams(e.target.value ? { workspace: e.target.value } : {})} disabled={!workspaces.data}>
            {workspaces.data?.items.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
          </select>
        </label>
      </div>
      <QueryView query={workspaces} what="workspaces">
        {(ws) => ws.items.length === 0 ? <Empty action={<Link to="/">Create a workspace</Link>}>A binding deploys a workflow into a workspace; there is no workspace yet.</Empty> : <WorkspaceBindings key={workspaceId} workspaceId={workspaceId} />}
      </QueryView>
    </section>
  );
}

function WorkspaceBindings({ workspaceId }: { workspaceId: string }): ReactNode {
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const query = { workspace_id: workspaceId, limit: 200 };
  const bindings = useQuery({ queryKey: [...keys.bindings, query], queryFn: () => unwrap(api.GET('/api/v1/workflows/bindings', { params: { query } })) });
  const workflows = useQuery({ queryKey: keys.workflows, queryFn: () => unwrap(api.GET('/api/v1/workflows', { params: { query: { limit: 200 } } })) });
  const m = useBindingMutations(workspaceId, setSecret);
  const wfs = (workflows.data?.items ?? []).map((w) => ({ id: w.id, name: w.name }));
  const nameOf = (id: string) => wfs.find((w) => w.id === id)?.name ?? id.slice(0, 8);
  return (
    <>
      {secret && <WebhookSecret url={secret} onDismiss={() => setSecret(null)} />}
      <div className="actions"><button type="button" onClick={() => setCreating(true)}>New binding</button></div>
      {creating && (
        <BindingForm initial={emptyBinding(zone)} workflows={wfs} submitLabel="Create binding" busy={m.create.isPending} error={m.create.error}
          onSubmit={(f) => m.create.mutate(f, { onSuccess: () => setCreating(false) })} onCancel={() => setCreating(false)} />
      )}
      <ProblemNote error={m.update.error ?? m.run.error ?? m.remove.error} />
      <QueryView query={bindings} what="bindings">
        {(data) => data.items.length === 0 ? (
          <Empty action={wfs.length ? <button type="button" onClick={() => setCreating(true)}>Bind a workflow to this workspace</button> : <Link to="/workflows">Create a workflow first</Link>}>No bindings in this workspace.</Empty>
        ) : (
          <ul className="cards">
            {data.items.map((b) => <BindingCard key={b.id} binding={b as Binding} name={nameOf(b.workflow_id)} workflows={wfs} m={m} />)}
          </ul>
        )}
      </QueryView>
    </>
  );
}

function BindingCard({ binding: b, name, workflows, m }: { binding: Binding; name: string; workflows: { id: string; name: string }[]; m: ReturnType<typeof useBindingMutations> }): ReactNode {
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState<'delete' | 'rotate' | null>(null);
  const [runId, setRunId] = useState<string | null>(null);
  const [editError, setEditError] = useState<unknown>(null);
  const isWebhook = (b.trigger as { type: string }).type === 'webhook';
  return (
    <li className="card binding">
      <h2 className="card-title">{name}</h2>
      <p>{describeTrigger(b)} · <span className={b.enabled ? 'badge badge-ok' : 'badge'}>{b.enabled ? '● enabled' : '❚❚ disabled'}</span>{b.chat_entrypoint ? ' · in chat' : ''}{isWebhook && b.has_webhook_token ? ' · webhook token set' : ''}</p>
      {editing ? (
        <BindingForm initial={fromBinding(b)} workflows={workflows} submitLabel="Save binding" busy={m.update.isPending} error={editError}
          onSubmit={(f) => { setEditError(null); m.save(b.id, f).then(() => setEditing(false), setEditError); }} onCancel={() => setEditing(false)} />
      ) : (
        <div className="actions">
          <button type="button" onClick={() => m.update.mutate({ id: b.id, change: { enabled: !b.enabled } })} aria-label={`${b.enabled ? 'Disable' : 'Enable'} binding of ${name}`}>{b.enabled ? 'Disable' : 'Enable'}</button>
          <button type="button" disabled={!b.enabled || m.run.isPending} onClick={() => m.run.mutate(b.id, { onSuccess: (r) => setRunId(r.run_id ?? null) })} aria-label={`Run binding of ${name}`}>Run</button>
          <button type="button" onClick={() => setEditing(true)} aria-label={`Edit binding of ${name}`}>Edit</button>
          {isWebhook && <button type="button" onClick={() => setConfirm('rotate')} aria-label={`Rotate token of ${name}`}>Rotate token</button>}
          <button type="button" onClick={() => setConfirm('delete')} aria-label={`Delete binding of ${name}`}>Delete</button>
        </div>
      )}
      {runId && <p role="status">Run started: <Link to={`/runs/${runId}`}>{runId.slice(0, 8)}</Link></p>}
      {confirm && (
        <div role="group" aria-label={confirm === 'delete' ? 'Confirm delete' : 'Confirm rotate'} className="actions">
          <span>{confirm === 'delete' ? 'Delete this binding? Its webhook and schedule stop.' : 'Issue a new token? The current webhook URL stops working at once.'}</span>
          <button type="button" className="danger" onClick={() => {
            if (confirm === 'delete') m.remove.mutate(b.id);
            else m.update.mutate({ id: b.id, change: { rotate_webhook_token: true } });
            setConfirm(null);
          }}>{confirm === 'delete' ? 'Yes, delete' : 'Yes, rotate'}</button>
          <button type="button" onClick={() => setConfirm(null)}>Cancel</button>
        </div>
      )}
    </li>
  );
}
