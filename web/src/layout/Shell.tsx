import type { ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useMe, useWorkspaces } from '../hooks/queries';
import { signOut } from '../auth/session';
import { sessionState } from '../auth/session-state';
import { CurrentWorkspaceProvider, useCurrentWorkspace } from './current-workspace';

export function Shell({ children }: { children: ReactNode }): ReactNode {
  return (
    <CurrentWorkspaceProvider>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <NavLink to="/" className="brand">Agent Ops</NavLink>
        <WorkspaceSwitcher />
        <nav aria-label="Main">
          <NavLink to="/board">Board</NavLink>
          <NavLink to="/tasks" end>Tasks</NavLink>
          <NavLink to="/workflows">Workflows</NavLink>
          <NavLink to="/bindings">Bindings</NavLink>
          <NavLink to="/runs">Runs</NavLink>
          <NavLink to="/jobs">Jobs</NavLink>
          <NavLink to="/chat">Chat</NavLink>
          <NavLink to="/agents">Agents</NavLink>
          <NavLink to="/goals">Goals</NavLink>
          <NavLink to="/operators">Operators</NavLink>
          <AdminLink />
        </nav>
        <UserMenu />
      </header>
      <main id="main" tabIndex={-1}>{children}</main>
      <footer className="footer">
        API: <a href="/api/docs">interactive docs</a> · <a href="/api/redoc">reference</a> · <a href="/api/openapi.json">OpenAPI</a>
      </footer>
    </CurrentWorkspaceProvider>
  );
}

function WorkspaceSwitcher(): ReactNode {
  const list = useWorkspaces();
  const { workspaceId, setWorkspaceId } = useCurrentWorkspace();
  const navigate = useNavigate();
  return (
    <label className="switcher">
      <span className="sr-only">Workspace</span>
      <select
        value={workspaceId ?? ''}
        onChange={(e) => {
          const id = e.target.value || undefined;
          setWorkspaceId(id);
          if (id) navigate(`/workspaces/${id}`);
        }}
        disabled={!list.data}
      >
        <option value="">All workspaces</option>
        {list.data?.items.map((w) => (
          <option key={w.id} value={w.id}>{w.name}</option>
        ))}
      </select>
    </label>
  );
}

function AdminLink(): ReactNode {
  const me = useMe();
  if (me.data?.role !== 'owner' && me.data?.role !== 'admin') return null;
  return <NavLink to="/users">Users</NavLink>;
}

function UserMenu(): ReactNode {
  const me = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  if (!me.data) return <span className="user" />;
  return (
    <span className="user">
      <NavLink to="/account" title={me.data.email}>{me.data.name || me.data.email}</NavLink>
      <button
        type="button"
        onClick={async () => {
          await signOut().catch(() => undefined);
          queryClient.clear();
          navigate('/');
          void sessionState.require().then(() => queryClient.invalidateQueries());
        }}
      >
        Sign out
      </button>
    </span>
  );
}
