import { createElement, lazy, type ComponentType, type ReactNode } from 'react';

/** A route's page in its own chunk; `preload` starts the download before the router asks for it. */
export interface LazyPage {
  (): ReactNode;
  preload(): Promise<void>;
}

/**
 * Like React.lazy, but a page whose chunk has already arrived (preloaded at app start) renders
 * at once instead of suspending: a Suspense fallback once shown holds the content back for at
 * least 300 ms (React's reveal throttle), which made the board wait ~300 ms with its chunk and
 * data already here.
 */
export function lazyRoute(load: () => Promise<{ default: ComponentType }>): LazyPage {
  let loaded: ComponentType | undefined;
  let pending: Promise<{ default: ComponentType }> | undefined;
  const start = () => (pending ??= load().then((m) => ((loaded = m.default), m)));
  const Lazy = lazy(start);
  const Page = (() => createElement(loaded ?? Lazy)) as LazyPage;
  Page.preload = () => start().then(() => undefined);
  return Page;
}
