/**
 * Every environment variable the platform reads, declared once: type, default and a doc line.
 * `load.ts` validates against it, `write-env-example.ts` renders `.env.example` from it and
 * the README's configuration table is checked against it by a test.
 */
export type VarType = 'string' | 'int' | 'bool' | 'url' | 'list' | 'enum' | 'secret';

export interface VarSpec {
  type: VarType;
  default?: string;
  doc: string;
  group: string;
  values?: readonly string[];
  min?: number;
  max?: number;
  /** url schemes accepted for type 'url' */
  schemes?: readonly string[];
  /** extra check; returns an error message or undefined */
  check?: (value: string) => string | undefined;
}

const octets = (value: string): string | undefined => {
  if (value.includes('/')) return 'must be three decimal octets without a CIDR suffix (e.g. 172.30.0)';
  const parts = value.split('.');
  if (parts.length !== 3) return 'must be exactly three decimal octets (e.g. 172.30.0)';
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return `octet '${part}' is not a decimal number 0-255`;
  }
  return undefined;
};

export const ENV_SCHEMA = {
  // Process and cluster
  NODE_ENV: { type: 'enum', values: ['development', 'production', 'test'], default: 'production', group: 'Process', doc: 'Runtime mode; test quiets start-up output.' },
  NODE_ID: { type: 'string', default: '', group: 'Process', doc: 'Moleculer node id; empty means hostname-pid.' },
  ROLES: { type: 'list', default: 'api,control,work', values: ['api', 'control', 'work'], group: 'Process', doc: 'Roles this process runs: api (gateway + domain), control (scheduler, celery queue), work (work queue).' },
  TRANSPORTER: { type: 'url', default: '', schemes: ['nats'], group: 'Process', doc: 'Empty: one process. nats://host:port joins a cluster of nodes.' },
  NAMESPACE: { type: 'string', default: 'wao', group: 'Process', doc: 'Moleculer namespace; nodes only see nodes of the same namespace.' },
  REQUEST_TIMEOUT_SECONDS: { type: 'int', default: '60', min: 1, max: 3600, group: 'Process', doc: 'Longest an action call may take (also across nodes) before it fails with 504.' },
  CAPABILITY_PATHS: { type: 'list', default: '', group: 'Process', doc: 'Extra folders (comma separated) whose sub-folders are capability packages, e.g. node_modules/@acme.' },
  CAPABILITY_DISABLED: { type: 'list', default: '', group: 'Process', doc: 'Package names (comma separated) not to load on this node, e.g. to replace @wao/auth with your own identity package.' },
  HOT_RELOAD: { type: 'bool', default: 'true', group: 'Process', doc: 'Watch package folders and load, reload or unload packages without a restart.' },
  SHUTDOWN_GRACE_SECONDS: { type: 'int', default: '30', min: 0, max: 600, group: 'Process', doc: 'On SIGTERM, how long in-flight requests and jobs may drain before exit.' },
  LOG_LEVEL: { type: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace'], default: 'info', group: 'Process', doc: 'Log level of the JSON (pino) logs.' },
  LOG_FORMAT: { type: 'enum', values: ['auto', 'json', 'pretty'], default: 'auto', group: 'Process', doc: 'Log lines as JSON, or readable (pino-pretty); auto: readable when stdout is a terminal, JSON otherwise.' },
  DATA_DIR: { type: 'string', default: './data', group: 'Process', doc: 'Where embedded stores keep data (embedded Postgres, local object store).' },
  // HTTP
  API_HOST: { type: 'string', default: '0.0.0.0', group: 'HTTP', doc: 'Address the API and web listeners bind to.' },
  API_PORT: { type: 'int', default: '8000', min: 0, max: 65535, group: 'HTTP', doc: 'API port (/api/v1, /health, /api/docs).' },
  WEB_PORT: { type: 'int', default: '18080', min: 0, max: 65535, group: 'HTTP', doc: 'Web front end port; proxies /api and /health to the API.' },
  WEB_DEV_SERVER_URL: { type: 'url', default: '', schemes: ['http'], group: 'HTTP', doc: 'Set by `npm run dev`: the web listener forwards the app (not /api) to this Vite dev server for hot reload; empty serves web/dist.' },
  PUBLIC_BASE_URL: { type: 'url', default: 'http://localhost:18080', schemes: ['http', 'https'], group: 'HTTP', doc: 'Public address of the service (webhook URLs, links); HTTPS in production.' },
  BODY_LIMIT: { type: 'string', default: '1mb', group: 'HTTP', doc: 'Largest JSON body accepted (413 above), e.g. 1mb, 512kb.', check: (v) => (/^\d+(b|kb|mb)$/i.test(v) ? undefined : 'must be a size like 512kb or 1mb') },
  UPLOAD_LIMIT_BYTES: { type: 'int', default: '26214400', min: 1, group: 'HTTP', doc: 'Largest uploaded file in bytes (413 above).' },
  RATE_LIMIT_PER_MINUTE: { type: 'int', default: '6000', min: 0, max: 10000000, group: 'HTTP', doc: 'Requests per minute per client address on /api/v1 (429 above); 0 turns the limit off.' },
  IDEMPOTENCY_TTL_SECONDS: { type: 'int', default: '86400', min: 60, max: 2592000, group: 'HTTP', doc: 'How long the first response to an Idempotency-Key is replayed for the same key (and another request under it refused).' },
  CORS_ORIGINS: { type: 'list', default: '', group: 'HTTP', doc: 'Origins allowed by CORS (comma separated); empty disables CORS headers.' },
  // Stores
  DATABASE_URL: { type: 'url', default: '', schemes: ['postgres', 'postgresql'], group: 'Stores', doc: 'PostgreSQL URL; empty starts embedded PGlite under DATA_DIR/pg.' },
  DATABASE_POOL_MAX: { type: 'int', default: '10', min: 2, max: 200, group: 'Stores', doc: 'Largest number of database connections per process.' },
  REDIS_URL: { type: 'url', default: '', schemes: ['redis', 'rediss'], group: 'Stores', doc: 'Redis URL; databases /0 cache, /1 fs metadata, /2 queues, /3 results are derived. Empty: in-memory cache and in-process queue.' },
  STORAGE_DRIVER: { type: 'enum', values: ['local', 's3'], default: 'local', group: 'Stores', doc: 'Object store: local disk under DATA_DIR/objects, or S3.' },
  S3_ENDPOINT: { type: 'url', default: '', schemes: ['http', 'https'], group: 'Stores', doc: 'S3-compatible endpoint (path-style); empty uses AWS.' },
  S3_REGION: { type: 'string', default: 'us-east-1', group: 'Stores', doc: 'S3 region.' },
  S3_BUCKET: { type: 'string', default: 'wao', group: 'Stores', doc: 'S3 bucket for uploads and artifacts.' },
  S3_CREATE_BUCKET: { type: 'bool', default: 'true', group: 'Stores', doc: 'Create S3_BUCKET on first use when it does not exist.' },
  S3_ACCESS_KEY_ID: { type: 'secret', default: '', group: 'Stores', doc: 'S3 access key id.' },
  S3_SECRET_ACCESS_KEY: { type: 'secret', default: '', group: 'Stores', doc: 'S3 secret access key.' },
  // Workers
  WORKER_CONTROL_CONCURRENCY: { type: 'int', default: '2', min: 1, max: 256, group: 'Workers', doc: 'Concurrency of the control-plane worker (queue celery).' },
  WORKER_WORK_CONCURRENCY: { type: 'int', default: '4', min: 1, max: 1024, group: 'Workers', doc: 'Concurrency of the work worker (queue work). A run holds one slot from its start to its end, a chat answer too while it waits on the model: size it for the chat streams a node answers at once (more wait in the queue).' },
  SCHEDULER_TICK_SECONDS: { type: 'int', default: '60', min: 1, max: 3600, group: 'Scheduler', doc: 'The scheduler\'s safety-net pass over due jobs (control role); fires are timed on each next due time, within a second, not by this tick.' },
  SCHEDULER_LOOKBACK_HOURS: { type: 'int', default: '24', min: 0, max: 24, group: 'Scheduler', doc: 'After downtime, a job whose latest slot is at most this old fires once (caught_up); older slots are logged missed.' },
  SCHEDULER_SWEEP_SECONDS: { type: 'int', default: '15', min: 1, max: 3600, group: 'Scheduler', doc: 'How often the scheduler recovers job runs: lost queue jobs, runs whose worker died, outcomes of started runs.' },
  JOBS_RUN_LEASE_SECONDS: { type: 'int', default: '120', min: 1, max: 3600, group: 'Scheduler', doc: 'A worker starting a job run renews its lease; a run whose lease lapses (the worker died) is re-queued or failed by its executor\'s rule.' },
  JOBS_POLL_SECONDS: { type: 'int', default: '30', min: 1, max: 3600, group: 'Scheduler', doc: 'How often a job run following a task or workflow run asks for its outcome when no settle event came.' },
  JOBS_PAUSE_AFTER_FAILURES: { type: 'int', default: '5', min: 0, max: 1000, group: 'Scheduler', doc: 'A job is paused (with the reason) after this many failed runs in a row; 0 never pauses.' },
  WORKER_HEARTBEAT_SECONDS: { type: 'int', default: '15', min: 1, max: 3600, group: 'Workers', doc: 'How often every node records its own heartbeat (roles, queues, in-flight) for GET /api/v1/workers.' },
  WORKER_STALE_SECONDS: { type: 'int', default: '60', min: 1, max: 86400, group: 'Workers', doc: 'A worker not heard from for longer than this is listed as stale.' },
  WORKER_FORGET_SECONDS: { type: 'int', default: '604800', min: 0, max: 31536000, group: 'Workers', doc: 'Heartbeat rows of a worker silent for longer than this are deleted (it leaves GET /api/v1/workers); 0 keeps them forever.' },
  USAGE_SOURCE_TIMEOUT_MS: { type: 'int', default: '5000', min: 50, max: 60000, group: 'Operations', doc: 'How long GET /api/v1/usage/summary waits for each contributing package before reporting it as timed out.' },
  // Features and integrations named by the spec
  FLOWS_AVAILABLE: { type: 'bool', default: 'true', group: 'Features', doc: 'Workflow surface on (true) or off (false).' },
  WORKFLOW_HTTP_ALLOW: { type: 'list', default: '', group: 'Workflows', doc: 'Hosts and CIDRs (comma separated, e.g. 127.0.0.1/32,intranet.local) the http node may reach although they are loopback, link-local, private or unique-local; empty allows none.' },
  WORKFLOW_HTTP_MAX_RESPONSE_BYTES: { type: 'int', default: '1048576', min: 1024, max: 104857600, group: 'Workflows', doc: 'Largest response body the http node reads (larger ones fail the step).' },
  WORKFLOW_HTTP_TIMEOUT_SECONDS: { type: 'int', default: '30', min: 1, max: 600, group: 'Workflows', doc: 'Default bound of one http node request (its config.timeout overrides it).' },
  WORKFLOW_WEBHOOK_MAX_BODY_BYTES: { type: 'int', default: '262144', min: 1, max: 104857600, group: 'Workflows', doc: 'Largest JSON body an inline webhook accepts (413 above; BODY_LIMIT still caps every route).' },
  WORKFLOW_WEBHOOK_INLINE_SECONDS: { type: 'int', default: '30', min: 1, max: 600, group: 'Workflows', doc: 'How long an inline webhook waits for its run; past it the caller gets 202 and the run continues in the background.' },
  WORKFLOW_RUN_PERSISTENCE: { type: 'enum', values: ['all', 'errors'], default: 'all', group: 'Workflows', doc: 'all: every run and receipt is stored; errors: an inline webhook run that completes is not stored (failed, paused and queued runs always are).' },
  WORKFLOW_COMMIT_SLOTS: { type: 'int', default: '1', min: 1, max: 32, group: 'Workflows', doc: 'Run commits (and, apart, new runs) one process has at the database at once; those arriving meanwhile go together in the next statement (group commit). 1 makes the largest groups and the fewest statements. /metrics shows the statements (workflows_commit_batch_size, _wait, _flush by kind): long waits behind quick round trips call for more slots.' },
  WORKFLOW_LEASE_SECONDS: { type: 'int', default: '30', min: 1, max: 3600, group: 'Workflows', doc: 'A running run whose worker has not renewed its lease for this long is taken over by the sweeper.' },
  WORKFLOW_SWEEP_SECONDS: { type: 'int', default: '10', min: 1, max: 3600, group: 'Workflows', doc: 'How often work nodes look for runs no worker holds (orphaned, never queued, or due timer waits).' },
  WORKFLOW_INLINE_WAIT_SECONDS: { type: 'int', default: '5', min: 0, max: 300, group: 'Workflows', doc: 'Timer waits up to this long sleep in the worker; longer ones pause the run and resume from a delayed job.' },
  WORKFLOW_RUN_WAIT_SECONDS: { type: 'int', default: '30', min: 1, max: 600, group: 'Workflows', doc: 'How long POST /workflows/{id}/run with wait=true waits for the run to finish before answering 202.' },
  WORKFLOW_TRACE_MAX_OUTPUT_BYTES: { type: 'int', default: '16384', min: 256, max: 10485760, group: 'Workflows', doc: 'Step outputs larger than this are summarised in a run trace.' },
  MODEL_OPENAI_BASE_URL: { type: 'url', default: 'https://api.openai.com/v1', schemes: ['http', 'https'], group: 'Models', doc: 'Base URL of the OpenAI-compatible chat-completions API that keys of provider openai call ({base}/chat/completions).' },
  MODEL_ANTHROPIC_BASE_URL: { type: 'url', default: 'https://api.anthropic.com', schemes: ['http', 'https'], group: 'Models', doc: 'Base URL of the Anthropic API that keys of provider anthropic call ({base}/v1/messages).' },
  MODEL_REQUEST_TIMEOUT_SECONDS: { type: 'int', default: '120', min: 1, max: 3600, group: 'Models', doc: 'Longest one model call may take, streaming included, before it fails with 504.' },
  MODEL_MAX_RETRIES: { type: 'int', default: '2', min: 0, max: 10, group: 'Models', doc: 'Retries of one model call after a provider 429 (honouring Retry-After up to 60 s), 5xx or dropped connection, with exponential backoff; 0 fails at once.' },
  MODEL_STREAM_THREADS: { type: 'string', default: 'auto', group: 'Models', check: (v) => (v === 'auto' || (/^\d{1,2}$/.test(v) && Number(v) <= 16) ? undefined : "must be 'auto' or a number of threads from 0 to 16"), doc: 'Worker threads that run model provider calls (the HTTP stream and the AI SDK parsing every streamed chunk) off the main event loop, so many chat streams at once do not queue behind that parsing; auto: one per core beyond the first three (on fewer cores a thread competes with the main one and costs more than it saves), at most 4; 0: on the main thread.' },
  MODEL_BASE_URL_ALLOW: { type: 'list', default: '', group: 'Models', doc: 'Hosts and CIDRs (comma separated, e.g. 127.0.0.1/32,llm.intranet) a key\'s base_url may reach although they are loopback, link-local, private or unique-local; empty allows none. MODEL_OPENAI_BASE_URL and MODEL_ANTHROPIC_BASE_URL are not checked.' },
  CHAT_FILE_MAX_BYTES: { type: 'int', default: '10485760', min: 1, max: 104857600, group: 'Chat', doc: 'Largest file attached to a chat message (POST /chat/stream) in bytes (413 above); at most 5 files a message.' },
  CHAT_REPLY_WAIT_SECONDS: { type: 'int', default: '30', min: 1, max: 600, group: 'Chat', doc: 'How long POST /chat/message waits for the agent\'s reply before answering 202 with the run id (the run goes on; the reply is stored when it ends). Keep it below REQUEST_TIMEOUT_SECONDS.' },
  CHAT_HISTORY_MESSAGES: { type: 'int', default: '20', min: 0, max: 200, group: 'Chat', doc: 'Earlier messages of a conversation given to the agent with a new one (the latest ones; also capped at 100000 characters in all).' },
  TASK_AGENT_LOOP: { type: 'bool', default: 'false', group: 'Features', doc: 'Experimental task_agent_loop; off by default.' },
  OTEL_ENABLED: { type: 'bool', default: 'false', group: 'Observability', doc: 'Send traces to an OpenTelemetry collector.' },
  OTEL_EXPORTER_OTLP_ENDPOINT: { type: 'url', default: 'http://127.0.0.1:4318', schemes: ['http', 'https'], group: 'Observability', doc: 'OTLP/HTTP collector base address (traces go to /v1/traces).' },
  OTEL_SERVICE_NAME: { type: 'string', default: 'wao', group: 'Observability', doc: 'Service name reported in traces.' },
  METRICS_ENABLED: { type: 'bool', default: 'true', group: 'Observability', doc: 'Expose Prometheus metrics at /metrics.' },
  SERVICE_DOCKER_NETWORK_PREFIX: { type: 'string', default: '172.30.0', check: octets, group: 'Sandbox', doc: 'Private proxy network: three decimal octets, no CIDR; derives the /24, the /25 dynamic pool and the .250/.251 proxies.' },
  SANDBOX_TIMEOUT_SECONDS: { type: 'int', default: '10', min: 1, max: 3600, group: 'Sandbox', doc: 'Longest one sandbox run (code node, POST /workspaces/sandbox) may take, wall clock; a step\'s config.timeout can only lower it.' },
  SANDBOX_MEMORY_MB: { type: 'int', default: '64', min: 8, max: 4096, group: 'Sandbox', doc: 'Memory of one sandbox run: the JavaScript isolate\'s heap, a container\'s memory limit.' },
  SANDBOX_MAX_INPUT_BYTES: { type: 'int', default: '1048576', min: 1024, max: 67108864, group: 'Sandbox', doc: 'Largest input of a sandbox run, as JSON, in bytes.' },
  SANDBOX_MAX_OUTPUT_BYTES: { type: 'int', default: '1048576', min: 1024, max: 67108864, group: 'Sandbox', doc: 'Largest result of a sandbox run, as JSON, in bytes; more fails the run with SANDBOX_ERR_OUTPUT_TOO_LARGE.' },
  SANDBOX_CONCURRENCY: { type: 'int', default: '4', min: 1, max: 256, group: 'Sandbox', doc: 'Sandbox runs at once per node; more wait in line (up to 100, then 503 SANDBOX_ERR_BUSY).' },
  SANDBOX_WARM_ISOLATES: { type: 'int', default: '4', min: 0, max: 64, group: 'Sandbox', doc: 'Idle JavaScript isolates kept per node for the next runs of the same entity (each run still gets a fresh context); 0 makes a new isolate per run.' },
  SANDBOX_DOCKER_HOST: { type: 'string', default: '', group: 'Sandbox', doc: 'Docker engine for the container driver (python, shell): unix:///var/run/docker.sock or tcp://host:2375. Empty: no container driver; such steps are refused at save.', check: (v) => (v === '' || /^unix:\/\/\/\S+$/.test(v) || /^(tcp|http|https):\/\/[^\s/]+(:\d+)?\/?$/.test(v) ? undefined : 'must be unix:///path/to/docker.sock or tcp://host:port') },
  SANDBOX_DOCKER_IMAGE_PYTHON: { type: 'string', default: 'python:3-alpine', group: 'Sandbox', doc: 'Image that runs python snippets (present on the engine; it is never pulled).' },
  SANDBOX_DOCKER_IMAGE_SHELL: { type: 'string', default: 'busybox:stable', group: 'Sandbox', doc: 'Image that runs shell snippets with /bin/sh (present on the engine; it is never pulled).' },
  SANDBOX_DOCKER_PIDS_LIMIT: { type: 'int', default: '64', min: 8, max: 4096, group: 'Sandbox', doc: 'Process limit of a sandbox container.' },
  EMAIL_ENABLED: { type: 'bool', default: 'false', group: 'Email', doc: 'Allow outbound email (reports); needs SMTP_HOST.' },
  SMTP_HOST: { type: 'string', default: '', group: 'Email', doc: 'SMTP server host.' },
  SMTP_PORT: { type: 'int', default: '587', min: 1, max: 65535, group: 'Email', doc: 'SMTP server port.' },
  SMTP_USER: { type: 'string', default: '', group: 'Email', doc: 'SMTP user.' },
  SMTP_PASSWORD: { type: 'secret', default: '', group: 'Email', doc: 'SMTP password.' },
  SMTP_FROM: { type: 'string', default: '', group: 'Email', doc: 'Sender address of outbound email.' },
  SMTP_SECURE: { type: 'bool', default: 'false', group: 'Email', doc: 'Use implicit TLS (port 465 style).' },
  BOTAPP_MODE: { type: 'enum', values: ['webhook', 'polling', 'auto'], default: 'auto', group: 'Channels', doc: 'Bot messenger mode; auto uses webhooks when PUBLIC_BASE_URL is HTTPS, else polling.' },
  CHATAPP_PUBLIC_KEY: { type: 'string', default: '', group: 'Channels', doc: 'Ed25519 public key (hex) verifying community chat app interactions.', check: (v) => (v === '' || /^[0-9a-f]{64}$/i.test(v) ? undefined : 'must be 64 hex characters (an Ed25519 public key)') },
  // Identity
  ADMIN_EMAIL: { type: 'string', default: '', group: 'Identity', doc: 'Owner created on first start; empty uses admin@localhost.' },
  ADMIN_PASSWORD: { type: 'secret', default: '', group: 'Identity', doc: 'Owner password on first start; empty generates one and logs it once.' },
  SIGNUP_ENABLED: { type: 'bool', default: 'false', group: 'Identity', doc: 'Allow POST /api/v1/auth/register to create new entities.' },
  TOKEN_TTL_SECONDS: { type: 'int', default: '86400', min: 60, max: 31536000, group: 'Identity', doc: 'Lifetime of access tokens.' },
  LOGIN_FAILURES_PER_ACCOUNT: { type: 'int', default: '10', min: 1, max: 100000, group: 'Identity', doc: 'Failed logins allowed per account (email) within LOGIN_FAILURE_WINDOW_SECONDS; more get 429.' },
  LOGIN_FAILURES_PER_ADDRESS: { type: 'int', default: '50', min: 1, max: 1000000, group: 'Identity', doc: 'Failed logins allowed per client address within LOGIN_FAILURE_WINDOW_SECONDS; more get 429.' },
  LOGIN_FAILURE_WINDOW_SECONDS: { type: 'int', default: '900', min: 1, max: 86400, group: 'Identity', doc: 'Window of the failed-login limits (fixed window from the first failure).' },
  WORKER_TOKEN: { type: 'secret', default: '', group: 'Identity', doc: 'Shared token workers present on POST /api/v1/workers/heartbeat.' },
  SECRET_KEY: {
    type: 'secret', default: '', group: 'Identity', doc: 'Key for encrypting stored credentials (at least 32 characters, e.g. openssl rand -hex 32; every node of a cluster needs the same); empty generates one under DATA_DIR.',
    check: (v) => (v === '' || v.length >= 32 ? undefined : 'must be at least 32 characters (e.g. the output of openssl rand -hex 32), or empty to generate one under DATA_DIR'),
  },
} as const satisfies Record<string, VarSpec>;

export type EnvName = keyof typeof ENV_SCHEMA;
