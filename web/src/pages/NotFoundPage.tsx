import type { ReactNode } from 'react';
import { Link } from 'react-router';

export function NotFoundPage(): ReactNode {
  return (
    <section className="state state-not-found">
      <h1>Page not found</h1>
      <p>Nothing lives at this address. <Link to="/">Go to the workspaces</Link>.</p>
    </section>
  );
}
