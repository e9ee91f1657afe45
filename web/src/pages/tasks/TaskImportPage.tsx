import type { ReactNode } from 'react';

export default function TaskImportPage(): ReactNode {
  return <section><h1>TaskImportPage</h1></section>;
}
