import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys } from '../../hooks/queries';
import { Markdown } from '../../ui/Markdown';
import { Empty, ProblemNote, QueryView } from '../../ui/states';

/** Comments (Markdown) with attachments: the files are uploaded first, then the comment names them. */
export function TaskComments({ taskId }: { taskId: string }): ReactNode {
  const queryClient = useQueryClient();
  const logs = useQuery({ queryKey: [...keys.task(taskId), 'logs'], queryFn: () => unwrap(api.GET('/api/v1/tasks/{id}/logs', { params: { path: { id: taskId } } })) });
  const [body, setBody] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const post = useMutation({
    mutationFn: async () => {
      const ids: string[] = [];
      for (const file of files) {
        const form = new FormData();
        form.append('file', file, file.name);
        const uploaded = await unwrap(api.POST('/api/v1/tasks/{id}/attachments', { params: { path: { id: taskId } }, body: form as never, bodySerializer: (b: unknown) => b as FormData }));
        for (const a of uploaded) ids.push(a.id);
      }
      return unwrap(api.POST('/api/v1/tasks/{id}/logs', { params: { path: { id: taskId } }, body: { body, attachment_ids: ids } }));
    },
    onSuccess: () => {
      setBody('');
      setFiles([]);
      void queryClient.invalidateQueries({ queryKey: keys.task(taskId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    post.mutate();
  };
  return (
    <section>
      <h2>Comments</h2>
      <QueryView query={logs} what="comments">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No comments yet.</Empty>
          ) : (
            <ul className="comments">
              {data.items.map((c) => (
                <li key={c.id} className="card">
                  <Markdown>{c.body}</Markdown>
                  {c.attachments?.map((a) => (
                    <a key={a.id} href={a.download_path} download>{a.filename} ({a.size} bytes)</a>
                  ))}
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
      <form className="form" onSubmit={submit} aria-label="New comment">
        <label>Comment (Markdown)<textarea value={body} onChange={(e) => setBody(e.target.value)} /></label>
        <label>Attachments<input type="file" multiple onChange={(e) => setFiles([...(e.target.files ?? [])])} /></label>
        <ProblemNote error={post.error} />
        <button type="submit" disabled={post.isPending}>Comment</button>
      </form>
    </section>
  );
}
