import { useState, useSyncExternalStore, type FormEvent, type ReactNode } from 'react';
import { sessionState } from './session-state';
import { signIn } from './session';
import { ProblemNote } from '../ui/states';

/**
 * The login form, shown over whatever page asked for it (a 401 anywhere opens it); the page
 * underneath stays mounted, so unsaved work survives and the asking request is repeated.
 */
export function LoginDialog(): ReactNode {
  const required = useSyncExternalStore(sessionState.subscribe, sessionState.isRequired);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  if (!required) return null;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(email, password);
      setPassword('');
      sessionState.satisfied();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="overlay overlay-login">
      <form className="dialog login" role="dialog" aria-modal="true" aria-labelledby="login-title" onSubmit={submit}>
        <h1 id="login-title">Sign in</h1>
        <label>
          Email
          <input type="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <ProblemNote error={error} />
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </div>
  );
}
