import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ApiError } from '../../api/problem';
import { keys } from '../../hooks/queries';
import { useAnnounce } from '../../ui/announcer';
import { toBindingBody, VariablesJsonError, type Binding, type BindingFormState } from './binding-form';

function body(f: BindingFormState, workspaceId: string) {
  try {
    return toBindingBody(f, workspaceId);
  } catch (err) {
    if (err instanceof VariablesJsonError) throw new ApiError({ title: 'Validation failed', status: 422, errors: [{ field: 'variables', message: err.message }] });
    throw err;
  }
}

/** Create, update (incl. enable and rotate), run and delete of bindings; a response with `webhook_url` is handed to `onSecret` once. */
export function useBindingMutations(workspaceId: string, onSecret: (url: string) => void) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.bindings });
  const seen = (b: Binding) => {
    if (b.webhook_url) onSecret(b.webhook_url);
    refresh();
  };
  const create = useMutation({
    mutationFn: (f: BindingFormState) => unwrap(api.POST('/api/v1/workflows/bindings', { body: body(f, workspaceId) })),
    onSuccess: (b) => {
      announce('Binding created');
      seen(b as Binding);
    },
  });
  const update = useMutation({
    mutationFn: ({ id, change }: { id: string; change: Partial<ReturnType<typeof toBindingBody>> & { rotate_webhook_token?: boolean } }) =>
      unwrap(api.PUT('/api/v1/workflows/bindings/{id}', { params: { path: { id } }, body: change })),
    onSuccess: (b) => {
      announce(`Binding ${b.enabled ? 'enabled' : 'disabled'}, saved`);
      seen(b);
    },
  });
  const save = (id: string, f: BindingFormState) => update.mutateAsync({ id, change: body(f, workspaceId) });
  const run = useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/api/v1/workflows/bindings/{id}/run', { params: { path: { id } }, body: {} })),
    onSuccess: () => {
      announce('Run started');
      void queryClient.invalidateQueries({ queryKey: keys.runs });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/v1/workflows/bindings/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      announce('Binding deleted');
      refresh();
    },
  });
  return { create, update, save, run, remove };
}
