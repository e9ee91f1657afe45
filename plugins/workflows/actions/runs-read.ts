import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { afterCursor, CURSOR_PARAMS, cursorPage, cursorPageSchema } from '../../../kernel/tenancy/cursor.ts';
import { PAGING_PARAMS } from '../../../kernel/tenancy/paging.ts';
import { runDetail, runSummary } from '../run-view.ts';
import { openRunStream } from '../sse.ts';
import { LAST_EVENT_ID_PARAM, lastEventIdOf } from '../../../kernel/sse.ts';
import { RUN_ID_PARAM, RUN_SCHEMA, RUN_STATUSES } from '../schemas.ts';
import { RUNS_KEYSET, type RunFilter } from '../store/run-queries.ts';
import type { WorkflowsAction } from '../service.ts';
import { RUN_LINK_SCHEMA, runLinkView } from '../run-link-view.ts';

export const listRuns: WorkflowsAction = {
  rest: 'GET /runs',
  summary: 'Run history',
  description: 'Newest first; filter by workflow_id, binding_id, workspace_id, status, trigger_type. Pages by `offset` or by `cursor` (the `next_cursor` of the previous page).',
  tags: ['workflows'],
  params: {
    ...PAGING_PARAMS,
    ...CURSOR_PARAMS,
    workflow_id: { type: 'string', max: 64, optional: true },
    binding_id: { type: 'string', max: 64, optional: true },
    workspace_id: { type: 'string', max: 64, optional: true },
    status: { type: 'enum', values: [...RUN_STATUSES], optional: true },
    trigger_type: { type: 'enum', values: ['manual', 'webhook', 'schedule', 'event', 'workspace_event', 'retry', 'subworkflow'], optional: true },
  },
  response: cursorPageSchema(RUN_SCHEMA),
  async handler(ctx: Context<RunFilter & { limit: number; offset: number; cursor?: string }>) {
    const { limit, offset, cursor, ...filter } = ctx.params;
    const page = { limit, offset, after: afterCursor(RUNS_KEYSET, { cursor, offset }) };
    const { items, total } = await this.runQueries.list(entityOf(ctx), filter, page);
    const { items: rows, ...rest } = cursorPage(RUNS_KEYSET, items, page);
    return { items: rows.map(runSummary), total, ...rest };
  },
};

export const getRun: WorkflowsAction = {
  rest: 'GET /runs/:run_id',
  summary: 'Run detail with its snapshot and sanitised trace',
  description: 'Live node status: GET /runs/{run_id}/events (SSE).',
  tags: ['workflows'],
  params: { ...RUN_ID_PARAM },
  response: RUN_SCHEMA,
  async handler(ctx: Context<{ run_id: string }>) {
    const row = await this.runQueries.get(entityOf(ctx), ctx.params.run_id);
    return runDetail(row, await this.runQueries.receipts(row.id), this.env.WORKFLOW_TRACE_MAX_OUTPUT_BYTES);
  },
};

export const runEvents: WorkflowsAction = {
  rest: { method: 'GET', path: '/runs/:run_id/events', passReqResToParams: true },
  summary: 'Live status of a run (SSE)',
  description: 'Durable events carry their seq as id: reconnect with the `Last-Event-ID` header (or `?last_event_id=`) to get every event after it. Ends after run.finished.',
  tags: ['workflows'],
  params: { ...RUN_ID_PARAM, ...LAST_EVENT_ID_PARAM, $req: { type: 'any', optional: true }, $res: { type: 'any', optional: true } },
  response: { 200: { description: 'Server-sent events', contentType: 'text/event-stream', schema: { type: 'string' } } },
  async handler(ctx: Context<{ run_id: string; last_event_id?: number; $req?: { headers: Record<string, string> } }>) {
    const row = await this.runQueries.get(entityOf(ctx), ctx.params.run_id);
    return openRunStream(this, ctx, row.id, lastEventIdOf(ctx.params));
  },
};

export const runFamily: WorkflowsAction = {
  rest: 'GET /runs/:run_id/family',
  summary: 'Retry chain, sub-workflow runs and durable recovery evidence',
  description: 'Every run of the lineage, oldest first, each with where it was retried from, the steps it invalidated, how many receipts it carried over and how often a sweeper recovered it; `children`: the child runs their subworkflow steps started; `parent`: the step that started this run, when it is a child.',
  tags: ['workflows'],
  params: { ...RUN_ID_PARAM },
  response: {
    type: 'object',
    properties: {
      root_run_id: { type: 'string' },
      runs: { type: 'array', items: { type: 'object' } },
      parent: { ...RUN_LINK_SCHEMA, type: ['object', 'null'] },
      children: { type: 'array', items: RUN_LINK_SCHEMA },
    },
    required: ['root_run_id', 'runs', 'parent', 'children'],
  },
  async handler(ctx: Context<{ run_id: string }>) {
    const entityId = entityOf(ctx);
    const row = await this.runQueries.get(entityId, ctx.params.run_id);
    const runs = await this.runQueries.family(entityId, row.root_run_id);
    const counts = await this.runQueries.carriedCounts(runs.map((r) => r.id));
    const links = await this.links.around(entityId, runs.map((r) => r.id));
    const parent = links.parents.find((l) => l.child_run_id === row.id);
    return {
      root_run_id: row.root_run_id,
      parent: parent ? runLinkView(parent) : null,
      children: links.children.map(runLinkView),
      runs: runs.map((r) => ({
        ...runSummary(r),
        recovery: {
          retry_from_step: r.retry_from_step,
          invalidated_steps: r.invalidated ?? [],
          carried_receipts: counts.get(r.id)?.carried ?? 0,
          receipts: counts.get(r.id)?.steps ?? 0,
          sweeper_recoveries: r.recoveries,
        },
      })),
    };
  },
};
