import { Suspense, type ComponentType, type ReactNode } from 'react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { BrowserRouter, matchRoutes, Route, Routes } from 'react-router';
import { makeQueryClient } from './query-client';
import { LoginDialog } from './auth/LoginDialog';
import { Shell } from './layout/Shell';
import { AnnouncerProvider } from './ui/announcer';
import { Loading } from './ui/states';
import { WorkspacesPage } from './pages/workspaces/WorkspacesPage';
import { WorkspaceDashboard } from './pages/workspaces/WorkspaceDashboard';
import { OperatorsPage } from './pages/operators/OperatorsPage';
import { UsersPage } from './pages/account/UsersPage';
import { AccountPage } from './pages/account/AccountPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { meQuery, workspacesQuery } from './hooks/queries';
import { prefetchBoard } from './pages/board/board-queries';
import { lazyRoute, type LazyPage } from './lazy-route';

// route chunks: what only some pages need stays out of the initial download
const TasksPage = lazyRoute(() => import('./pages/tasks/TasksPage'));
const TaskDetailPage = lazyRoute(() => import('./pages/tasks/TaskDetailPage'));
const BoardPage = lazyRoute(() => import('./pages/board/BoardPage'));
const WorkflowsPage = lazyRoute(() => import('./pages/workflows/WorkflowsPage'));
const EditorPage = lazyRoute(() => import('./pages/editor/EditorPage'));
const RunsPage = lazyRoute(() => import('./pages/runs/RunsPage'));
const RunPage = lazyRoute(() => import('./pages/runs/RunPage'));
const BindingsPage = lazyRoute(() => import('./pages/bindings/BindingsPage'));
const JobsPage = lazyRoute(() => import('./pages/jobs/JobsPage'));
const JobPage = lazyRoute(() => import('./pages/jobs/JobPage'));
const JobRunPage = lazyRoute(() => import('./pages/jobs/JobRunPage'));
const NewJobPage = lazyRoute(() => import('./pages/jobs/JobFormPage').then((m) => ({ default: m.NewJobPage })));
const EditJobPage = lazyRoute(() => import('./pages/jobs/JobFormPage').then((m) => ({ default: m.EditJobPage })));
const ChatPage = lazyRoute(() => import('./pages/chat/ChatPage'));
const AgentsPage = lazyRoute(() => import('./pages/agents/AgentsPage'));
const AgentPage = lazyRoute(() => import('./pages/agents/AgentPage'));
const ModelKeysPage = lazyRoute(() => import('./pages/agents/ModelKeysPage'));
const GoalsPage = lazyRoute(() => import('./pages/goals/GoalsPage'));
const GoalPage = lazyRoute(() => import('./pages/goals/GoalPage'));
const PlansPage = lazyRoute(() => import('./pages/goals/PlansPage'));
const ExecutionsPage = lazyRoute(() => import('./pages/goals/ExecutionsPage'));

const queryClient = makeQueryClient();

interface AppRoute {
  path: string;
  Page: ComponentType | LazyPage;
  /** the page's first reads, started at load (the same query options the page uses, so it finds them cached or in flight) */
  data?: (client: QueryClient) => Promise<void>;
}

const routes: AppRoute[] = [
  { path: '/', Page: WorkspacesPage },
  { path: '/workspaces/:workspaceId', Page: WorkspaceDashboard },
  { path: '/tasks', Page: TasksPage },
  { path: '/tasks/:taskId', Page: TaskDetailPage },
  { path: '/board', Page: BoardPage, data: (client) => prefetchBoard(client, undefined) },
  { path: '/workflows', Page: WorkflowsPage },
  { path: '/workflows/:workflowId', Page: EditorPage },
  { path: '/runs', Page: RunsPage },
  { path: '/runs/:runId', Page: RunPage },
  { path: '/bindings', Page: BindingsPage },
  { path: '/jobs', Page: JobsPage },
  { path: '/jobs/new', Page: NewJobPage },
  { path: '/jobs/:jobId', Page: JobPage },
  { path: '/jobs/:jobId/edit', Page: EditJobPage },
  { path: '/jobs/:jobId/runs/:runId', Page: JobRunPage },
  { path: '/chat/:conversationId?', Page: ChatPage },
  { path: '/agents', Page: AgentsPage },
  { path: '/agents/:agentId', Page: AgentPage },
  { path: '/model-keys', Page: ModelKeysPage },
  { path: '/goals', Page: GoalsPage },
  { path: '/goals/:goalId', Page: GoalPage },
  { path: '/plans', Page: PlansPage },
  { path: '/executions', Page: ExecutionsPage },
  { path: '/operators', Page: OperatorsPage },
  { path: '/users', Page: UsersPage },
  { path: '/account', Page: AccountPage },
  { path: '*', Page: NotFoundPage },
];

/**
 * Started before the first render when the current route is in its own chunk, so nothing waits
 * for something else to render first: the chunk, the session reads the shell makes and the
 * page's first reads, side by side. The page's reads do not wait for /auth/me: pages never did (the session cookie goes with
 * every request, and a 401 waits for the sign-in and repeats, auth/auth-fetch.ts); gating them on
 * it cost one more round trip (~45 ms on the board). Resolves when the chunk is here (or after at
 * most 300 ms), so the page renders at once instead of behind a Suspense fallback.
 */
export function preloadRoute(pathname: string): Promise<void> {
  const route = matchRoutes(routes, pathname)?.at(-1)?.route as AppRoute | undefined;
  // a page in the initial download renders at once and its reads start from that render: reads
  // sent before it only delayed its paint (~30 ms on the not-found page)
  if (!route || !('preload' in route.Page)) return Promise.resolve();
  const chunk = route.Page.preload().catch(() => undefined);
  void queryClient.prefetchQuery(meQuery);
  void queryClient.prefetchQuery(workspacesQuery());
  // a failed read is left to the page, which asks again and shows the error
  if (route.data) void route.data(queryClient).catch(() => undefined);
  return Promise.race([chunk, new Promise<void>((r) => setTimeout(r, 300))]);
}

export function App(): ReactNode {
  return (
    <QueryClientProvider client={queryClient}>
      <AnnouncerProvider>
        <BrowserRouter>
          <Shell>
            <Suspense fallback={<Loading label="Loading page" />}>
              <Routes>
                {routes.map(({ path, Page }) => (
                  <Route key={path} path={path} element={<Page />} />
                ))}
              </Routes>
            </Suspense>
          </Shell>
          <LoginDialog />
        </BrowserRouter>
      </AnnouncerProvider>
    </QueryClientProvider>
  );
}
