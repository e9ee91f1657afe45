import type { ReactNode } from 'react';

export default function RunPage(): ReactNode {
  return <section><h1>RunPage</h1></section>;
}
