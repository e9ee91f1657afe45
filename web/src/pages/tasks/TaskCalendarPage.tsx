import type { ReactNode } from 'react';

export default function TaskCalendarPage(): ReactNode {
  return <section><h1>TaskCalendarPage</h1></section>;
}
