import type { ActionSchema, Context, Service } from 'moleculer';
import type { Config } from '../../config/load.ts';
import type { ActionDocKeys, RestDeclaration } from '../../kernel/openapi/types.ts';
import type { NodeTypeRegistry } from './engine/node-types.ts';
import type { DefinitionStore } from './store/definitions.ts';
import type { BindingStore } from './store/bindings.ts';
import type { RunStore } from './store/runs.ts';
import type { RunQueries } from './store/run-queries.ts';
import type { RunControl } from './store/run-control.ts';
import type { GrantStore } from './store/grants.ts';
import type { RunLinks } from './store/run-links.ts';
import type { VersionSnapshots } from './store/version-snapshots.ts';
import type { Sql } from './store/sql.ts';
import type { Engine } from './engine/engine.ts';
import type { LiveEvents } from './engine/live-events.ts';
import type { LeaseKeeper, RunWorker } from './engine/worker.ts';
import type { WebhookCache } from './webhook-cache.ts';
import type { Presence } from '../../kernel/db/presence.ts';

export type Env = Config['env'];

/** The service instance every action runs on; `created()` fills these in. */
export interface WorkflowsService extends Service {
  env: Env;
  sql: Sql;
  nodeTypes: NodeTypeRegistry;
  definitions: DefinitionStore;
  bindings: BindingStore;
  runs: RunStore;
  runQueries: RunQueries;
  control: RunControl;
  grants: GrantStore;
  links: RunLinks;
  versions: VersionSnapshots;
  webhooks: WebhookCache;
  leases: LeaseKeeper;
  /** this process's presence (kernel/db/presence.ts): the engine's leases are named after it */
  presence?: Presence;
  engine: Engine;
  live: LiveEvents;
  worker?: RunWorker;
}

export type WorkflowsAction = Omit<ActionSchema<WorkflowsService>, 'rest'> & ActionDocKeys & { rest?: RestDeclaration; accepts?: string[] };

export type AnyContext = Context<any, any>;
