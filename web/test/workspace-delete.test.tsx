import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import { WorkspacesPage } from '../src/pages/workspaces/WorkspacesPage';

// Issue 19: deleting a workspace for good is confirmed in an accessible in-app dialog (no
// window.confirm): labelled, focus moved in and kept there, Escape cancels and gives focus back,
// and the workspace's name must be typed before the delete is sent.
afterEach(() => vi.unstubAllGlobals());

const WORKSPACE = { id: 'ws-1', name: 'Old ops', description: null, category: null, status: 'active', archived_at: '2030-01-01T00:00:00.000Z', created_at: '2030-01-01T00:00:00.000Z', updated_at: '2030-01-01T00:00:00.000Z' };

/** the API as the page meets it; each DELETE is pushed onto `deletes` */
function stubApi(deletes: string[]): void {
  vi.stubGlobal('fetch', async (req: Request) => {
    const url = new URL(req.url);
    if (req.method === 'DELETE') {
      deletes.push(url.pathname);
      return new Response(null, { status: 204 });
    }
    const items = deletes.length ? [] : [WORKSPACE];
    return new Response(JSON.stringify({ items, total: items.length, limit: 200, offset: 0 }), { status: 200, headers: { 'content-type': 'application/json' } });
  });
}

function renderPage(): void {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>
        <WorkspacesPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('deleting a workspace for good', () => {
  it('never calls window.confirm: a labelled modal traps focus, Escape cancels and returns focus, nothing is deleted', async () => {
    const deletes: string[] = [];
    stubApi(deletes);
    const confirm = vi.fn(() => true);
    vi.stubGlobal('confirm', confirm);
    renderPage();
    const opener = await screen.findByRole('button', { name: 'Delete for good' }, { timeout: 10_000 });
    await userEvent.click(opener);

    const dialog = screen.getByRole('dialog', { name: 'Delete the workspace "Old ops"?' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveAccessibleDescription(/everything in it are deleted for good/);
    const typed = within(dialog).getByRole('textbox', { name: 'Type Old ops to confirm' });
    expect(typed).toHaveFocus();
    const go = within(dialog).getByRole('button', { name: 'Delete this workspace' });
    expect(go).toBeDisabled();

    // Tab stays inside: from the last control back to the first, and Shift+Tab the other way
    await userEvent.tab();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.tab();
    expect(typed).toHaveFocus();
    await userEvent.tab({ shift: true });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();

    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(opener).toHaveFocus();
    expect(confirm).not.toHaveBeenCalled();
    expect(deletes).toEqual([]);
  });

  it('sends the delete only once the name is typed exactly, and Cancel deletes nothing', async () => {
    const deletes: string[] = [];
    stubApi(deletes);
    renderPage();
    const opener = await screen.findByRole('button', { name: 'Delete for good' }, { timeout: 10_000 });
    await userEvent.click(opener);
    let dialog = screen.getByRole('dialog', { name: /Old ops/ });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(opener).toHaveFocus();

    await userEvent.click(opener);
    dialog = screen.getByRole('dialog', { name: /Old ops/ });
    const typed = within(dialog).getByRole('textbox', { name: /to confirm/ });
    expect(typed).toHaveValue('');
    await userEvent.type(typed, 'old ops{Enter}');
    expect(within(dialog).getByRole('button', { name: 'Delete this workspace' })).toBeDisabled();
    expect(deletes).toEqual([]);
    await userEvent.clear(typed);
    await userEvent.type(typed, 'Old ops');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete this workspace' }));
    await waitFor(() => expect(deletes).toEqual(['/api/v1/workspaces/ws-1']), { timeout: 10_000 });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), { timeout: 10_000 });
  });
});
