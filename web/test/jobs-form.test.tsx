import { describe, expect, it, vi, afterEach } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import { ApiError } from '../src/api/problem';
import { ConfigJsonError, describeSchedule, emptyForm, fieldErrors, formatSeconds, fromJob, scheduleOf, toJobBody, toLocalInput, type Job } from '../src/pages/jobs/job-form';
import { JobForm } from '../src/pages/jobs/JobForm';

afterEach(() => vi.unstubAllGlobals());

describe('the job form state and the API body', () => {
  it('sends only the fields of the schedule kind, empty links as null', () => {
    const f = { ...emptyForm('Europe/Berlin'), name: 'Digest', kind: 'every' as const, every_seconds: '600', cron: 'left over', payload_message: 'Sum up' };
    const body = toJobBody(f);
    expect(body.schedule).toEqual({ kind: 'every', timezone: 'Europe/Berlin', every_seconds: 600 });
    expect(body).toMatchObject({ workspace_id: null, agent_id: null, goal_id: null, delete_after_run: false, config: {} });
    expect(scheduleOf({ ...f, kind: 'cron', cron: ' 0 9 * * 1 ' })).toEqual({ kind: 'cron', cron: '0 9 * * 1', timezone: 'Europe/Berlin' });
    expect(scheduleOf({ ...f, kind: 'at', at: '2031-01-02T03:04' })).toEqual({ kind: 'at', at: '2031-01-02T03:04', timezone: 'Europe/Berlin' });
  });

  it('keeps delete_after_run for one-shots only, and refuses a config that is no JSON object', () => {
    const f = { ...emptyForm('UTC'), delete_after_run: true };
    expect(toJobBody(f).delete_after_run).toBe(false);
    expect(toJobBody({ ...f, kind: 'at', at: '2031-01-01T00:00' }).delete_after_run).toBe(true);
    expect(() => toJobBody({ ...f, config: '{nope' })).toThrow(ConfigJsonError);
    expect(() => toJobBody({ ...f, config: '[1]' })).toThrow(/JSON object/);
  });

  it('round-trips a saved job: an instant is edited as wall-clock time of its zone', () => {
    const job = { name: 'Once', description: null, executor: 'agent', payload_message: 'x', workspace_id: null, agent_id: null, goal_id: null, overlap: 'queue', enabled: false, delete_after_run: true, config: { a: 1 }, schedule: { kind: 'at', cron: null, timezone: 'America/New_York', every_seconds: null, at: '2031-07-01T14:30:00.000Z' } } as unknown as Job;
    const f = fromJob(job);
    expect(f).toMatchObject({ kind: 'at', at: '2031-07-01T10:30', timezone: 'America/New_York', overlap: 'queue', enabled: false, delete_after_run: true });
    expect(JSON.parse(f.config)).toEqual({ a: 1 });
    expect(toLocalInput('2031-01-01T00:15:00Z', 'Asia/Kolkata')).toBe('2031-01-01T05:45');
  });

  it('maps the problem fields of a 422 onto form fields', () => {
    const err = new ApiError({ title: 'Validation failed', status: 422, errors: [
      { field: 'schedule.cron', message: 'bad cron' },
      { field: 'deliverables[0]', message: 'bad path' },
      { field: 'config/mode', message: 'mode is required' },
      { field: 'config.binding_id', message: 'no such binding' },
      { field: '', message: 'general' },
    ] });
    const { byField, other } = fieldErrors(err);
    expect(byField).toEqual({ 'schedule.cron': ['bad cron'], deliverables: ['bad path'], config: ['mode is required', 'no such binding'] });
    expect(other).toEqual(['general']);
    expect(fieldErrors(new Error('x'))).toEqual({ byField: {}, other: [] });
  });

  it('describes schedules in words', () => {
    expect(describeSchedule({ kind: 'cron', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', every_seconds: null, at: null })).toBe('cron 0 9 * * 1-5 (Europe/Berlin)');
    expect(describeSchedule({ kind: 'every', cron: null, timezone: 'UTC', every_seconds: 5400, at: null })).toBe('every 1 h 30 min');
    expect(formatSeconds(86_400 + 60)).toBe('1 d 1 min');
  });
});

/** The API as the form meets it: executors, workspaces, agents and the server's schedule check. */
function stubApi(previews: string[]) {
  vi.stubGlobal('fetch', async (req: Request) => {
    const url = new URL(req.url);
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', 'x-request-id': 'req-1' } });
    if (url.pathname === '/api/v1/jobs/executors') return json({ items: [{ name: 'agent', description: 'Runs an agent', queue: 'work', needs_prompt: true, requires: [], requires_one: [] }] });
    if (url.pathname === '/api/v1/workspaces') return json({ items: [], total: 0, limit: 200, offset: 0 });
    if (url.pathname === '/api/v1/agents') return json({ items: [], total: 0, limit: 200, offset: 0 });
    if (url.pathname === '/api/v1/jobs/preview') {
      const body = (await req.json()) as { schedule: { cron?: string; timezone: string } };
      previews.push(body.schedule.cron ?? '');
      if (body.schedule.cron === '61 * * * *') {
        return json({ title: 'Validation failed', status: 422, code: 'VALIDATION_FAILED', errors: [{ field: 'schedule.cron', message: "The 'schedule.cron' field is not a valid cron expression: minute 61 is out of range." }] }, 422);
      }
      return json({ timezone: body.schedule.timezone, next_fire_times: ['2031-03-03T09:00:00.000Z', '2031-03-04T09:00:00.000Z'] });
    }
    return json({ title: 'Not Found', status: 404 }, 404);
  });
}

function renderForm(props: Partial<Parameters<typeof JobForm>[0]> = {}) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const onSubmit = vi.fn();
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <JobForm initial={{ ...emptyForm('UTC'), cron: '0 9 * * *' }} submitLabel="Create job" busy={false} error={null} onSubmit={onSubmit} onCancel={() => undefined} {...props} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { onSubmit };
}

describe('the job form', () => {
  it('previews the next fire times from the server, and shows its 422 at the cron field as it is typed', async () => {
    const previews: string[] = [];
    stubApi(previews);
    renderForm();
    const preview = screen.getByRole('region', { name: 'Next fire times' });
    await waitFor(() => expect(within(preview).getAllByRole('listitem')).toHaveLength(2), { timeout: 5000 });
    const cron = screen.getByLabelText(/^Cron \(/);
    await userEvent.clear(cron);
    await userEvent.type(cron, '61 * * * *');
    await waitFor(() => expect(cron).toHaveAttribute('aria-invalid', 'true'), { timeout: 5000 });
    expect(screen.getByText(/minute 61 is out of range/)).toBeInTheDocument();
    expect(screen.getByText('Fix the schedule to see when it fires.')).toBeInTheDocument();
    // one request per pause in typing, not one per key
    expect(previews.filter((p) => p.startsWith('61')).length).toBeLessThanOrEqual(2);
  });

  it("puts a save's 422 at each field it names, and submits the typed state", async () => {
    stubApi([]);
    const error = new ApiError({ title: 'Validation failed', status: 422, code: 'VALIDATION_FAILED', errors: [
      { field: 'schedule.timezone', message: "'Mars/Olympus' is not an IANA zone" },
      { field: 'payload_message', message: 'The agent executor needs a payload_message.' },
    ] });
    const { onSubmit } = renderForm({ error });
    const zone = screen.getByLabelText('Time zone');
    expect(zone).toHaveAttribute('aria-invalid', 'true');
    expect(zone.closest('.field')!).toHaveTextContent('Mars/Olympus');
    const message = screen.getByLabelText(/^Message/);
    expect(message).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText(/Not saved: Validation failed/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Name'), 'Nightly');
    await userEvent.click(screen.getByRole('button', { name: 'Create job' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: 'Nightly', kind: 'cron', cron: '0 9 * * *' }));
    const schedule = screen.getByRole('group', { name: 'Schedule' });
    await userEvent.click(within(schedule).getByLabelText('Fixed interval'));
    expect(screen.getByLabelText(/^Every/)).toHaveValue(3600);
  });
});
