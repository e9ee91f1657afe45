import { lazy, Suspense, type ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Route, Routes } from 'react-router';
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

// route chunks: what only some pages need stays out of the initial download
const TasksPage = lazy(() => import('./pages/tasks/TasksPage'));
const TaskDetailPage = lazy(() => import('./pages/tasks/TaskDetailPage'));
const BoardPage = lazy(() => import('./pages/board/BoardPage'));
const WorkflowsPage = lazy(() => import('./pages/workflows/WorkflowsPage'));
const EditorPage = lazy(() => import('./pages/editor/EditorPage'));
const RunsPage = lazy(() => import('./pages/runs/RunsPage'));
const RunPage = lazy(() => import('./pages/runs/RunPage'));
const BindingsPage = lazy(() => import('./pages/bindings/BindingsPage'));
const JobsPage = lazy(() => import('./pages/jobs/JobsPage'));
const JobPage = lazy(() => import('./pages/jobs/JobPage'));
const JobRunPage = lazy(() => import('./pages/jobs/JobRunPage'));
const NewJobPage = lazy(() => import('./pages/jobs/JobFormPage').then((m) => ({ default: m.NewJobPage })));
const EditJobPage = lazy(() => import('./pages/jobs/JobFormPage').then((m) => ({ default: m.EditJobPage })));
const ChatPage = lazy(() => import('./pages/chat/ChatPage'));
const AgentsPage = lazy(() => import('./pages/agents/AgentsPage'));
const AgentPage = lazy(() => import('./pages/agents/AgentPage'));
const ModelKeysPage = lazy(() => import('./pages/agents/ModelKeysPage'));
const GoalsPage = lazy(() => import('./pages/goals/GoalsPage'));
const GoalPage = lazy(() => import('./pages/goals/GoalPage'));
const PlansPage = lazy(() => import('./pages/goals/PlansPage'));
const ExecutionsPage = lazy(() => import('./pages/goals/ExecutionsPage'));

const queryClient = makeQueryClient();

export function App(): ReactNode {
  return (
    <QueryClientProvider client={queryClient}>
      <AnnouncerProvider>
        <BrowserRouter>
          <Shell>
            <Suspense fallback={<Loading label="Loading page" />}>
              <Routes>
                <Route path="/" element={<WorkspacesPage />} />
                <Route path="/workspaces/:workspaceId" element={<WorkspaceDashboard />} />
                <Route path="/tasks" element={<TasksPage />} />
                <Route path="/tasks/:taskId" element={<TaskDetailPage />} />
                <Route path="/board" element={<BoardPage />} />
                <Route path="/workflows" element={<WorkflowsPage />} />
                <Route path="/workflows/:workflowId" element={<EditorPage />} />
                <Route path="/runs" element={<RunsPage />} />
                <Route path="/runs/:runId" element={<RunPage />} />
                <Route path="/bindings" element={<BindingsPage />} />
                <Route path="/jobs" element={<JobsPage />} />
                <Route path="/jobs/new" element={<NewJobPage />} />
                <Route path="/jobs/:jobId" element={<JobPage />} />
                <Route path="/jobs/:jobId/edit" element={<EditJobPage />} />
                <Route path="/jobs/:jobId/runs/:runId" element={<JobRunPage />} />
                <Route path="/chat/:conversationId?" element={<ChatPage />} />
                <Route path="/agents" element={<AgentsPage />} />
                <Route path="/agents/:agentId" element={<AgentPage />} />
                <Route path="/model-keys" element={<ModelKeysPage />} />
                <Route path="/goals" element={<GoalsPage />} />
                <Route path="/goals/:goalId" element={<GoalPage />} />
                <Route path="/plans" element={<PlansPage />} />
                <Route path="/executions" element={<ExecutionsPage />} />
                <Route path="/operators" element={<OperatorsPage />} />
                <Route path="/users" element={<UsersPage />} />
                <Route path="/account" element={<AccountPage />} />
                <Route path="*" element={<NotFoundPage />} />
              </Routes>
            </Suspense>
          </Shell>
          <LoginDialog />
        </BrowserRouter>
      </AnnouncerProvider>
    </QueryClientProvider>
  );
}
