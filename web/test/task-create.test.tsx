import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { TaskCreate, type TemplateVariables } from '../src/pages/tasks/TaskCreate';
import constants from './fixtures/task-constants.json';

// Issue 19: a template's variables are typed by the generated API schema (the instantiate route
// documents them as a flat record), so the form sends them without a cast.
afterEach(() => vi.unstubAllGlobals());

const TEMPLATE = { id: 'tpl-1', name: 'Customer call', title: 'Call {{customer}}', description: 'About {{topic}}', variables: ['customer', 'topic'] };

/** The API as the form meets it; every instantiate body is pushed onto `sent`. */
function stubApi(sent: unknown[]): void {
  vi.stubGlobal('fetch', async (req: Request) => {
    const url = new URL(req.url);
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (url.pathname === '/api/v1/tasks/constants') return json(constants);
    if (url.pathname === '/api/v1/tasks/templates') return json({ items: [TEMPLATE], total: 1, limit: 200, offset: 0 });
    if (url.pathname === `/api/v1/tasks/templates/${TEMPLATE.id}/instantiate`) {
      sent.push(await req.json());
      return json({ id: 'task-1', title: 'Call Acme' }, 201);
    }
    return json({ title: 'Not Found', status: 404 }, 404);
  });
}

describe('a task from a template', () => {
  it('types the variables from the API schema: a flat record of strings, numbers or booleans', () => {
    expectTypeOf<TemplateVariables>().toEqualTypeOf<{ [key: string]: string | number | boolean }>();
  });

  it('asks for each variable and sends what was typed as `variables`', async () => {
    const sent: unknown[] = [];
    stubApi(sent);
    const onDone = vi.fn();
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <TaskCreate workspaceId="ws-1" onDone={onDone} />
      </QueryClientProvider>,
    );
    const form = screen.getByRole('form', { name: 'New task' });
    await waitFor(() => expect(within(form).getByRole('option', { name: 'Customer call' })).toBeInTheDocument(), { timeout: 10_000 });
    await userEvent.selectOptions(within(form).getByLabelText('From template'), 'tpl-1');
    await userEvent.type(within(form).getByRole('textbox', { name: 'customer' }), 'Acme');
    await userEvent.type(within(form).getByRole('textbox', { name: 'topic' }), 'renewal');
    expect(within(form).queryByLabelText('Title')).toBeNull();
    await userEvent.click(within(form).getByRole('button', { name: 'Create task' }));
    await waitFor(() => expect(onDone).toHaveBeenCalled(), { timeout: 10_000 });
    expect(sent).toEqual([{ variables: { customer: 'Acme', topic: 'renewal' }, overrides: { deadline: null, workspace_id: 'ws-1' } }]);
  });
});
