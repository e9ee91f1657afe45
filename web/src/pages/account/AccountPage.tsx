import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useMe } from '../../hooks/queries';
import { ProblemNote, QueryView } from '../../ui/states';

export function AccountPage(): ReactNode {
  const me = useMe();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/auth/password', { body: { current_password: current, new_password: next } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  return (
    <section>
      <h1>Account</h1>
      <QueryView query={me} what="account">
        {(u) => (
          <dl className="kv">
            <div><dt>Name</dt><dd>{u.name}</dd></div>
            <div><dt>Email</dt><dd>{u.email}</dd></div>
            <div><dt>Role</dt><dd>{u.role}</dd></div>
          </dl>
        )}
      </QueryView>
      <h2>Change password</h2>
      <form className="form" onSubmit={submit}>
        <label>Current password<input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} /></label>
        <label>New password (12 to 256 characters)<input type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} /></label>
        <ProblemNote error={change.error} />
        {change.isSuccess && <p role="status">Password changed; other sessions were signed out.</p>}
        <button type="submit" disabled={change.isPending}>Change password</button>
      </form>
    </section>
  );
}
