import type { ReactNode } from 'react';

export default function BindingsPage(): ReactNode {
  return <section><h1>BindingsPage</h1></section>;
}
