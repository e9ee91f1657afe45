import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ProblemNote, QueryView } from '../../ui/states';

type Role = 'owner' | 'admin' | 'member';

/** Users of the entity (owners and admins): invite, change role, deactivate. */
export function UsersPage(): ReactNode {
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: ['users'], queryFn: () => unwrap(api.GET('/api/v1/users', { params: { query: { limit: 200 } } })) });
  const [invite, setInvite] = useState({ email: '', name: '', password: '', role: 'member' as Role });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/users', { body: { email: invite.email, password: invite.password, role: invite.role, ...(invite.name ? { name: invite.name } : {}) } })),
    onSuccess: () => {
      setInvite({ email: '', name: '', password: '', role: 'member' });
      void queryClient.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const update = useMutation({
    mutationFn: (v: { id: string; role?: Role; status?: 'active' | 'deactivated' }) => unwrap(api.PUT('/api/v1/users/{id}', { params: { path: { id: v.id } }, body: { role: v.role, status: v.status } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['users'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section>
      <h1>Users</h1>
      <QueryView query={users} what="users">
        {(data) => (
          <table>
            <thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Status</th></tr></thead>
            <tbody>
              {data.items.map((u) => (
                <tr key={u.id}>
                  <td>{u.email}</td>
                  <td>{u.name}</td>
                  <td>
                    <select aria-label={`Role of ${u.email}`} value={u.role} onChange={(e) => update.mutate({ id: u.id, role: e.target.value as Role })}>
                      <option value="owner">owner</option><option value="admin">admin</option><option value="member">member</option>
                    </select>
                  </td>
                  <td>
                    <button type="button" onClick={() => update.mutate({ id: u.id, status: u.status === 'active' ? 'deactivated' : 'active' })}>
                      {u.status === 'active' ? 'Deactivate' : 'Activate'}
                    </button>{' '}
                    {u.status}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
      <ProblemNote error={update.error} />
      <h2>Invite a user</h2>
      <form className="form" onSubmit={submit}>
        <label>Email<input type="email" value={invite.email} onChange={(e) => setInvite({ ...invite, email: e.target.value })} /></label>
        <label>Name<input value={invite.name} onChange={(e) => setInvite({ ...invite, name: e.target.value })} /></label>
        <label>Initial password<input type="password" autoComplete="new-password" value={invite.password} onChange={(e) => setInvite({ ...invite, password: e.target.value })} /></label>
        <label>Role
          <select value={invite.role} onChange={(e) => setInvite({ ...invite, role: e.target.value as Role })}>
            <option value="member">member</option><option value="admin">admin</option><option value="owner">owner</option>
          </select>
        </label>
        <ProblemNote error={create.error} />
        <button type="submit" disabled={create.isPending}>Invite</button>
      </form>
    </section>
  );
}
