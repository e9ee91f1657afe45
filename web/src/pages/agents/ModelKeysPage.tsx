import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useAnnounce } from '../../ui/announcer';
import { MutationConfirm } from '../../ui/MutationConfirm';
import { Empty, ProblemNote, QueryView } from '../../ui/states';
import { agentKeys, useModelKeys, type ModelKey } from './agent-queries';

type Provider = ModelKey['provider'];
interface KeyFields { name: string; provider: Provider; api_key: string; default_model: string; base_url: string; is_default: boolean }
const EMPTY: KeyFields = { name: '', provider: 'openai', api_key: '', default_model: '', base_url: '', is_default: false };

/** Model provider keys: the secret is sent once and never shown again (only its prefix). */
export default function ModelKeysPage(): ReactNode {
  const keys = useModelKeys();
  const [creating, setCreating] = useState(false);
  const [fields, setFields] = useState<KeyFields>(EMPTY);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const create = useMutation({
    mutationFn: (f: KeyFields) => unwrap(api.POST('/api/v1/api-keys', { body: { name: f.name, provider: f.provider, api_key: f.api_key, default_model: f.default_model, is_default: f.is_default, ...(f.base_url.trim() ? { base_url: f.base_url.trim() } : {}) } })),
    onSuccess: (k) => {
      setFields(EMPTY);
      setCreating(false);
      announce(`Key ${k.name} saved`);
      void queryClient.invalidateQueries({ queryKey: agentKeys.modelKeys });
    },
    // the secret does not stay in the page after a refusal either
    onError: () => setFields((f) => ({ ...f, api_key: '' })),
  });
  const set = (patch: Partial<KeyFields>) => setFields({ ...fields, ...patch });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(fields);
  };
  return (
    <section>
      <div className="page-head">
        <h1>Model keys</h1>
        <button type="button" onClick={() => setCreating(true)}>New key</button>
      </div>
      {creating && (
        <form className="form card" aria-label="New model key" onSubmit={submit} autoComplete="off">
          <label>Name<input value={fields.name} onChange={(e) => set({ name: e.target.value })} /></label>
          <label>
            Provider
            <select value={fields.provider} onChange={(e) => set({ provider: e.target.value as Provider })}>
              <option value="openai">OpenAI</option>
              <option value="anthropic">Anthropic</option>
              <option value="openai_compatible">OpenAI-compatible (local runtime, gateway)</option>
            </select>
          </label>
          <label>Secret key (write-only)<input type="password" autoComplete="new-password" value={fields.api_key} onChange={(e) => set({ api_key: e.target.value })} /></label>
          <label>Default model<input value={fields.default_model} onChange={(e) => set({ default_model: e.target.value })} /></label>
          <label>Base URL (optional; required for OpenAI-compatible)<input value={fields.base_url} onChange={(e) => set({ base_url: e.target.value })} /></label>
          <label className="inline"><input type="checkbox" checked={fields.is_default} onChange={(e) => set({ is_default: e.target.checked })} /> The entity's default key</label>
          <ProblemNote error={create.error} />
          <div className="actions">
            <button type="submit" disabled={create.isPending}>Save key</button>
            <button type="button" onClick={() => { setCreating(false); setFields(EMPTY); }}>Cancel</button>
          </div>
        </form>
      )}
      <QueryView query={keys} what="model keys">
        {(data) =>
          data.items.length === 0 ? (
            <Empty action={<button type="button" onClick={() => setCreating(true)}>Add the first key</button>}>No model keys yet: agents need one to answer.</Empty>
          ) : (
            <table>
              <thead>
                <tr><th scope="col">Name</th><th scope="col">Provider</th><th scope="col">Key</th><th scope="col">Default model</th><th scope="col">Base URL</th><th scope="col">Last used</th><th scope="col"><span className="sr-only">Actions</span></th></tr>
              </thead>
              <tbody>
                {data.items.map((k) => <KeyRow key={k.id} modelKey={k} />)}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </section>
  );
}

function KeyRow({ modelKey: k }: { modelKey: ModelKey }): ReactNode {
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id: k.id } } })),
    onSuccess: () => {
      announce(`Key ${k.name} deleted`);
      void queryClient.invalidateQueries({ queryKey: agentKeys.modelKeys });
    },
  });
  return (
    <tr>
      <td>{k.name} {k.is_default && <span className="badge">default</span>}</td>
      <td>{k.provider}</td>
      <td><code>{k.key_prefix}</code></td>
      <td>{k.default_model}</td>
      <td>{k.base_url ?? 'deployment default'}</td>
      <td>{k.last_used_at ? new Date(k.last_used_at).toLocaleString() : 'never'}</td>
      <td>
        <button
          type="button"
          className="danger"
          aria-label={`Delete key ${k.name}`}
          aria-haspopup="dialog"
          onClick={() => {
            remove.reset();
            setConfirming(true);
          }}
        >
          Delete
        </button>
        <MutationConfirm
          title={`Delete the key "${k.name}"?`}
          confirmLabel="Delete this key"
          mutation={remove}
          open={confirming}
          onClose={() => setConfirming(false)}
        >
          <p>Agents using it fall back to the entity's default key. The secret cannot be recovered.</p>
        </MutationConfirm>
      </td>
    </tr>
  );
}
