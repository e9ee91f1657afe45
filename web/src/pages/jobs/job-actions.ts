import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useAnnounce } from '../../ui/announcer';

export const jobKeys = {
  all: ['jobs'] as const,
  list: (query: object) => ['jobs', 'list', query] as const,
  one: (id: string) => ['jobs', 'one', id] as const,
  runs: (id: string, query: object) => ['jobs', 'one', id, 'runs', query] as const,
  run: (id: string, runId: string) => ['jobs', 'one', id, 'run', runId] as const,
};

/** Toggle, run now and delete of one job; each refreshes every jobs query and is announced. */
export function useJobActions(job: { id: string; name: string }, opts: { onDeleted?(): void } = {}) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: jobKeys.all });
  const path = { params: { path: { job_id: job.id } } };
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => unwrap(api.POST('/api/v1/jobs/{job_id}/toggle', { ...path, body: { enabled } })),
    onSuccess: (j) => {
      announce(`"${job.name}" ${j.enabled ? 'enabled' : 'paused'}`);
      refresh();
    },
  });
  const runNow = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/jobs/{job_id}/run_now', path)),
    onSuccess: (run) => {
      announce(`"${job.name}" fired: run ${run.status}`);
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/jobs/{job_id}', path)),
    onSuccess: () => {
      announce(`"${job.name}" deleted`);
      queryClient.removeQueries({ queryKey: jobKeys.one(job.id) });
      refresh();
      opts.onDeleted?.();
    },
  });
  return { toggle, runNow, remove, error: toggle.error ?? runNow.error ?? remove.error };
}
