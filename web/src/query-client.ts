import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api/problem';

/** Server state: a failed call is retried only when no answer came (network), never on a problem. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        retry: (count, err) => err instanceof ApiError && err.network && count < 2,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}
