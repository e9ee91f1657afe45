import type { Context, ServiceSchema } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { WORKFLOWS_ERR } from './errors.ts';
import { NodeTypeRegistry } from './engine/node-types.ts';
import { Engine } from './engine/engine.ts';
import { LiveEvents, RUN_EVENTS_TOPIC, RUN_WATCH_TOPIC, type LiveEvent } from './engine/live-events.ts';
import { LeaseKeeper, RunWorker } from './engine/worker.ts';
import { DefinitionStore } from './store/definitions.ts';
import { BindingStore } from './store/bindings.ts';
import { RunStore } from './store/runs.ts';
import { RunQueries } from './store/run-queries.ts';
import { VersionSnapshots } from './store/version-snapshots.ts';
import { commitMetrics } from './commit-metrics.ts';
import { RunControl } from './store/run-control.ts';
import { GrantStore } from './store/grants.ts';
import { RunLinks } from './store/run-links.ts';
import { RunRecovery } from './store/run-recovery.ts';
import { takePresence } from '../../kernel/db/presence.ts';
import { sqlOn } from './store/sql.ts';
import { WebhookCache } from './webhook-cache.ts';
import type { WorkflowsService } from './service.ts';
import { createDefinition, getDefinition, listDefinitions, removeDefinition, updateDefinition } from './actions/definitions.ts';
import { nodeTypes } from './actions/node-types.ts';
import { createBinding, listBindings, removeBinding, updateBinding } from './actions/bindings.ts';
import { runBinding, runDefinition, runStream } from './actions/runs-start.ts';
import { getRun, listRuns, runEvents, runFamily } from './actions/runs-read.ts';
import { cancelRun, resumeRun, retryRun, stepControl } from './actions/runs-control.ts';
import { webhook } from './actions/webhook.ts';
import { routable, routeEvent, triggerEvent } from './actions/trigger.ts';
import { runNode } from './actions/run-node.ts';
import { importWorkflow } from './actions/import.ts';
import { aiEdit } from './actions/ai-edit.ts';
import { checkpoint, decide, liveEvents } from './actions/durable.ts';
import { agentRuns, INTERRUPT_EVENT, startInternalRun } from './actions/internal-runs.ts';
import { chatEntrypoint, startChatRun } from './actions/chat-entrypoint.ts';
import { awaitRun, runEventStream } from './actions/run-follow.ts';
import { createGrant, listGrants, revokeGrant, useGrant } from './actions/grants.ts';
import { childPlan, childRuns, startChildRun } from './actions/child-runs.ts';
import { bindingInfo, scheduleBindings, startScheduledRun } from './actions/scheduled.ts';

/**
 * Workflows: `/api/v1/workflows`. Definitions, bindings and runs live in PostgreSQL; node types
 * are other packages (kind `node`) found in the service registry. Runs execute on nodes with
 * the `work` role from the `work` queue; inline webhooks run on the api node that received
 * them. See README.md for the conventions (templates, node contract, SSE events, settings).
 */
export default {
  name: 'workflows',
  actions: {
    nodeTypes,
    listDefinitions,
    createDefinition,
    importWorkflow,
    aiEdit,
    getDefinition,
    updateDefinition,
    removeDefinition,
    listBindings,
    createBinding,
    updateBinding,
    removeBinding,
    runBinding,
    runDefinition,
    runStream,
    listRuns,
    getRun,
    runEvents,
    runFamily,
    cancelRun,
    resumeRun,
    retryRun,
    stepControl,
    webhook,
    triggerEvent,
    runNode,
    checkpoint,
    liveEvents,
    decide,
    startInternalRun,
    chatEntrypoint,
    startChatRun,
    agentRuns,
    runEventStream,
    awaitRun,
    scheduleBindings,
    bindingInfo,
    startScheduledRun,
    listGrants,
    revokeGrant,
    useGrant,
    createGrant,
    childPlan,
    childRuns,
    startChildRun,
  },
  hooks: {
    before: {
      '*'(this: WorkflowsService, ctx: Context) {
        void ctx;
        if (!this.env.FLOWS_AVAILABLE) throw WORKFLOWS_ERR.DISABLED('Workflows are turned off on this deployment (FLOWS_AVAILABLE=false).');
      },
    },
  },
  events: {
    '$services.changed'(this: WorkflowsService) {
      this.nodeTypes.invalidate();
    },
    // a node that left may have died holding runs; one that joined may be the restart of such a node
    '$node.disconnected'(this: WorkflowsService) {
      return this.worker?.takeAbandoned().catch((err) => this.logger.warn(`workflow recovery after a node left failed: ${(err as Error).message}`));
    },
    '$node.connected'(this: WorkflowsService) {
      return this.worker?.takeAbandoned().catch((err) => this.logger.warn(`workflow recovery after a node joined failed: ${(err as Error).message}`));
    },
    [RUN_EVENTS_TOPIC](this: WorkflowsService, ctx: Context<{ run_id: string; events: LiveEvent[] }>) {
      this.live.deliver(ctx.params);
    },
    [RUN_WATCH_TOPIC](this: WorkflowsService, ctx: Context<{ run_id: string; until: number }>) {
      this.live.markWatched(ctx.params);
    },
    [INTERRUPT_EVENT](this: WorkflowsService, ctx: Context<{ run_id: string; reason: string }>) {
      this.engine.activeRun(ctx.params.run_id)?.interrupt(ctx.params.reason);
    },
    'workflows.bindings.changed'(this: WorkflowsService) {
      this.webhooks.clear();
    },
    'workspace.deleted'(this: WorkflowsService, ctx: Context<{ entity_id: string; workspace_id: string }>) {
      return this.bindings.removeWorkspace(ctx.params.entity_id, ctx.params.workspace_id);
    },
    // platform events (task status changed, booking confirmed, message received, ...) reach
    // bindings with trigger event / workspace_event like POST /trigger
    '**': {
      group: 'workflows',
      async handler(this: WorkflowsService, ctx: Context<Record<string, unknown>>) {
        const name = ctx.eventName ?? '';
        if (!this.env.FLOWS_AVAILABLE || !routable(name) || name === 'workspace.deleted') return;
        const p = ctx.params;
        if (!p || typeof p !== 'object' || typeof p.entity_id !== 'string') return;
        await routeEvent(this, p.entity_id, name, typeof p.workspace_id === 'string' ? p.workspace_id : null, p, null).catch((err) =>
          this.logger.warn(`routing event '${name}' to workflows failed: ${(err as Error).message}`),
        );
      },
    },
  },
  created(this: WorkflowsService) {
    const kernel = kernelOf(this.broker);
    this.env = kernel.config.env;
    this.sql = sqlOn(kernel.db, { namedStatements: !kernel.config.embedded.database });
    this.nodeTypes = new NodeTypeRegistry(this.broker);
    this.definitions = new DefinitionStore(this.sql);
    this.bindings = new BindingStore(this.sql);
    const versions = new VersionSnapshots(this.sql);
    const metrics = commitMetrics(this.broker);
    this.runs = new RunStore(this.sql, versions, {
      commitSlots: this.env.WORKFLOW_COMMIT_SLOTS,
      onFlush: (kind, stats) => {
        metrics?.(kind, stats);
        this.engine.profile?.flush(kind, stats);
      },
    });
    this.runQueries = new RunQueries(this.sql, versions);
    this.control = new RunControl(this.sql);
    this.grants = new GrantStore(this.sql);
    this.links = new RunLinks(this.sql);
    this.versions = versions;
    this.webhooks = new WebhookCache(this.bindings);
    this.live = new LiveEvents(this.broker);
    this.engine = new Engine({ broker: this.broker, store: this.runs, nodeTypes: this.nodeTypes, live: this.live, queue: kernel.queue, env: this.env });
  },
  async started(this: WorkflowsService) {
    // the engine's leases are named after this process's presence, which dies with it
    this.presence = await takePresence(kernelOf(this.broker).db, this.logger);
    this.engine.holdAs(this.presence.key);
    this.leases = new LeaseKeeper(this.runs, this.engine, this.env.WORKFLOW_LEASE_SECONDS);
    this.leases.start();
    if (this.env.FLOWS_AVAILABLE && (this.env.ROLES as string[]).includes('work')) {
      this.worker = new RunWorker({
        engine: this.engine,
        store: this.runs,
        recovery: new RunRecovery(this.sql),
        queue: kernelOf(this.broker).queue,
        packagesLoaded: kernelOf(this.broker).packagesLoaded,
        concurrency: this.env.WORKER_WORK_CONCURRENCY,
        sweepSeconds: this.env.WORKFLOW_SWEEP_SECONDS,
        leaseSeconds: this.env.WORKFLOW_LEASE_SECONDS,
        logger: this.logger,
      });
      void this.worker.start();
    }
  },
  async stopped(this: WorkflowsService) {
    this.worker?.stop();
    this.leases?.stop();
    await this.presence?.release();
  },
} as unknown as ServiceSchema;
