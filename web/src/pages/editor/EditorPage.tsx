import type { ReactNode } from 'react';

export default function EditorPage(): ReactNode {
  return <section><h1>Workflow editor</h1></section>;
}
