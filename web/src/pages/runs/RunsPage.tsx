import type { ReactNode } from 'react';

export default function RunsPage(): ReactNode {
  return <section><h1>RunsPage</h1></section>;
}
