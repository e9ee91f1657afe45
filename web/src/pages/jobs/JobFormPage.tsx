import { useState, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ApiError } from '../../api/problem';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { useAnnounce } from '../../ui/announcer';
import { QueryView } from '../../ui/states';
import { ConfigJsonError, emptyForm, fromJob, toJobBody, type JobFormState } from './job-form';
import { jobKeys } from './job-actions';
import { JobForm } from './JobForm';

/** A config that is not JSON is refused before any call, as a problem naming `config`. */
function configProblem(err: ConfigJsonError): ApiError {
  return new ApiError({ title: 'Validation failed', status: 422, errors: [{ field: 'config', message: err.message }] });
}

function useSaveJob(jobId: string | undefined) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const announce = useAnnounce();
  return useMutation({
    mutationFn: (f: JobFormState) => {
      let body: ReturnType<typeof toJobBody>;
      try {
        body = toJobBody(f);
      } catch (err) {
        throw err instanceof ConfigJsonError ? configProblem(err) : err;
      }
      return jobId
        ? unwrap(api.PUT('/api/v1/jobs/{job_id}', { params: { path: { job_id: jobId } }, body }))
        : unwrap(api.POST('/api/v1/jobs', { body }));
    },
    onSuccess: (job) => {
      announce(`Job "${job.name}" saved`);
      void queryClient.invalidateQueries({ queryKey: jobKeys.all });
      navigate(`/jobs/${job.id}`);
    },
  });
}

/** `/jobs/new` */
export function NewJobPage(): ReactNode {
  const save = useSaveJob(undefined);
  const navigate = useNavigate();
  const { workspaceId } = useCurrentWorkspace();
  const [initial] = useState(() => ({ ...emptyForm(), workspace_id: workspaceId ?? '' }));
  return (
    <section>
      <h1>New scheduled job</h1>
      <JobForm initial={initial} submitLabel="Create job" busy={save.isPending} error={save.error} onSubmit={(f) => save.mutate(f)} onCancel={() => navigate('/jobs')} />
    </section>
  );
}

/** `/jobs/:jobId/edit` */
export function EditJobPage(): ReactNode {
  const { jobId = '' } = useParams();
  const job = useQuery({ queryKey: jobKeys.one(jobId), queryFn: () => unwrap(api.GET('/api/v1/jobs/{job_id}', { params: { path: { job_id: jobId }, query: { next: 5 } } })) });
  const save = useSaveJob(jobId);
  const navigate = useNavigate();
  return (
    <section>
      <QueryView query={job} what="job">
        {(j) => (
          <>
            <h1>Edit “{j.name}”</h1>
            <JobForm key={j.id} initial={fromJob(j)} submitLabel="Save job" busy={save.isPending} error={save.error} onSubmit={(f) => save.mutate(f)} onCancel={() => navigate(`/jobs/${j.id}`)} />
          </>
        )}
      </QueryView>
    </section>
  );
}
