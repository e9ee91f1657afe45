import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import ModelKeysPage from '../src/pages/agents/ModelKeysPage';

// Deleting a model key is confirmed in the app's own dialog (no window.confirm): a plain
// confirm/cancel, nothing to type. Cancel and Escape delete nothing, confirming sends one
// DELETE, and a refused delete is told inside the dialog.
afterEach(() => vi.unstubAllGlobals());

const KEY = { id: 'key-1', name: 'Main key', provider: 'openai', key_prefix: 'sk-abc', default_model: 'gpt-test', base_url: null, is_default: true, last_used_at: null, created_at: '2030-01-01T00:00:00.000Z', updated_at: '2030-01-01T00:00:00.000Z' };

/** the API as the page meets it; each DELETE is pushed onto `deletes`, answered with `refuse` once when set */
function stubApi(deletes: string[], refuse?: object): void {
  let refusal = refuse;
  vi.stubGlobal('fetch', async (req: Request) => {
    const url = new URL(req.url);
    if (req.method === 'DELETE') {
      deletes.push(url.pathname);
      if (refusal) {
        const body = refusal;
        refusal = undefined;
        return new Response(JSON.stringify(body), { status: 409, headers: { 'content-type': 'application/problem+json' } });
      }
      return new Response(null, { status: 204 });
    }
    const gone = deletes.length > 0 && !refuse;
    const items = gone ? [] : [KEY];
    return new Response(JSON.stringify({ items, total: items.length, limit: 200, offset: 0 }), { status: 200, headers: { 'content-type': 'application/json' } });
  });
}

function renderPage(): void {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } })}>
      <MemoryRouter>
        <ModelKeysPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('deleting a model key', () => {
  it('never calls window.confirm: Cancel and Escape close the dialog, give focus back and delete nothing', async () => {
    const deletes: string[] = [];
    stubApi(deletes);
    const confirm = vi.fn(() => true);
    vi.stubGlobal('confirm', confirm);
    renderPage();
    const opener = await screen.findByRole('button', { name: 'Delete key Main key' }, { timeout: 10_000 });
    expect(opener).toHaveAttribute('aria-haspopup', 'dialog');

    await userEvent.click(opener);
    let dialog = screen.getByRole('dialog', { name: 'Delete the key "Main key"?' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveAccessibleDescription(/fall back to the entity's default key/);
    // a plain confirmation: nothing to type, the confirm button ready, focus on Cancel
    expect(within(dialog).queryByRole('textbox')).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Delete this key' })).toBeEnabled();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(opener).toHaveFocus();

    await userEvent.click(opener);
    dialog = screen.getByRole('dialog', { name: /Main key/ });
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(opener).toHaveFocus();

    expect(confirm).not.toHaveBeenCalled();
    expect(deletes).toEqual([]);
    expect(screen.getByRole('button', { name: 'Delete key Main key' })).toBeInTheDocument();
  });

  it('confirming sends one DELETE, closes the dialog and the key leaves the list', async () => {
    const deletes: string[] = [];
    stubApi(deletes);
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Delete key Main key' }, { timeout: 10_000 }));
    const dialog = screen.getByRole('dialog', { name: /Main key/ });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete this key' }));
    await waitFor(() => expect(deletes).toEqual(['/api/v1/api-keys/key-1']), { timeout: 10_000 });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), { timeout: 10_000 });
    await screen.findByText(/No model keys yet/, undefined, { timeout: 10_000 });
  });

  it('a refused delete is told inside the dialog, which stays open', async () => {
    const deletes: string[] = [];
    stubApi(deletes, { title: 'Key in use', status: 409, detail: 'A running agent holds this key.', code: 'MODELS_ERR_KEY_IN_USE' });
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Delete key Main key' }, { timeout: 10_000 }));
    const dialog = screen.getByRole('dialog', { name: /Main key/ });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete this key' }));
    const alert = await within(dialog).findByRole('alert', undefined, { timeout: 10_000 });
    expect(alert).toHaveTextContent('Key in use');
    expect(alert).toHaveTextContent('A running agent holds this key.');
    expect(screen.getByRole('dialog', { name: /Main key/ })).toBeInTheDocument();
    expect(deletes).toEqual(['/api/v1/api-keys/key-1']);
    // Cancel closes it; the problem stays told in the key's row (once), as a workspace's does
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getAllByRole('alert').filter((el) => el.textContent?.includes('Key in use'))).toHaveLength(1);
  });
});
