import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ApiError } from '../api/problem';

export function Loading({ label = 'Loading' }: { label?: string }): ReactNode {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      {label}…
    </p>
  );
}

export function Empty({ children, action }: { children: ReactNode; action?: ReactNode }): ReactNode {
  return (
    <div className="state state-empty">
      <p>{children}</p>
      {action}
    </div>
  );
}

export function NotFound({ what }: { what: string }): ReactNode {
  return (
    <div className="state state-not-found" role="alert">
      <h2>Not found</h2>
      <p>No {what} with this id, or it belongs to another account.</p>
    </div>
  );
}

/** A failed call told as the problem says it: title, detail, code and request id; a network failure told apart. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }): ReactNode {
  const e = error instanceof ApiError ? error : ApiError.network(error);
  return (
    <div className="state state-error" role="alert">
      <h2>{e.network ? 'The service cannot be reached' : e.problem.title}</h2>
      {e.network ? <p>Check the connection or whether the service is running, then retry.</p> : e.problem.detail && <p>{e.problem.detail}</p>}
      <dl className="problem-meta">
        {e.problem.code && (
          <>
            <dt>Code</dt>
            <dd><code>{e.problem.code}</code></dd>
          </>
        )}
        {!e.network && (
          <>
            <dt>Status</dt>
            <dd>{e.status}</dd>
          </>
        )}
        {e.requestId && (
          <>
            <dt>Request id</dt>
            <dd><code>{e.requestId}</code></dd>
          </>
        )}
      </dl>
      {onRetry && <button type="button" onClick={onRetry}>Retry</button>}
    </div>
  );
}

/** The one way a page shows a query: loading, error (404 as not found), else its content. */
export function QueryView<T>({ query, what, children }: { query: UseQueryResult<T>; what: string; children: (data: T) => ReactNode }): ReactNode {
  if (query.isPending) return <Loading label={`Loading ${what}`} />;
  if (query.isError) {
    if (query.error instanceof ApiError && query.error.status === 404) return <NotFound what={what} />;
    return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  }
  return children(query.data);
}

/** An inline problem under a form: the title, the detail, and each field's message. */
export function ProblemNote({ error }: { error: unknown }): ReactNode {
  if (!error) return null;
  const e = error instanceof ApiError ? error : ApiError.network(error);
  return (
    <div className="problem-note" role="alert">
      <strong>{e.network ? 'The service cannot be reached.' : e.problem.title}</strong>
      {e.problem.detail && <span> {e.problem.detail}</span>}
      {e.problem.errors && (
        <ul>
          {e.problem.errors.map((f) => (
            <li key={f.field + f.message}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
      {e.problem.code && <small> ({e.problem.code}{e.requestId ? `, request ${e.requestId}` : ''})</small>}
    </div>
  );
}
