import test from 'ava';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config/load.ts';
import { ENV_SCHEMA } from '../config/schema.ts';
import { renderEnvExample, withConfigTable } from '../config/env-example.ts';

const ROOT = resolve(import.meta.dirname, '..');
const noDotenv = join(tmpdir(), 'no-such-dir', '.env');

test('defaults: one process, embedded stores, the ports and limits of the spec', (t) => {
  const { env, embedded } = loadConfig({}, noDotenv);
  t.is(env.API_PORT, 8000);
  t.is(env.WEB_PORT, 18080);
  t.deepEqual(env.ROLES, ['api', 'control', 'work']);
  t.is(env.WORKER_CONTROL_CONCURRENCY, 2);
  t.is(env.WORKER_WORK_CONCURRENCY, 4);
  t.is(env.SHUTDOWN_GRACE_SECONDS, 30);
  t.is(env.FLOWS_AVAILABLE, true);
  t.is(env.OTEL_ENABLED, false);
  t.is(env.BOTAPP_MODE, 'auto');
  t.deepEqual(embedded, { database: true, redis: true, objects: true });
});

test('the proxy network is derived from SERVICE_DOCKER_NETWORK_PREFIX', (t) => {
  t.deepEqual(loadConfig({}, noDotenv).network, { prefix: '172.30.0', subnet: '172.30.0.0/24', gateway: '172.30.0.1', dynamicPool: '172.30.0.128/25', proxies: ['172.30.0.250', '172.30.0.251'] });
  t.is(loadConfig({ SERVICE_DOCKER_NETWORK_PREFIX: '10.20.30' }, noDotenv).network.subnet, '10.20.30.0/24');
});

test('every bad variable is named in one error', (t) => {
  const err = t.throws(() => loadConfig({ SERVICE_DOCKER_NETWORK_PREFIX: '172.30.0.0/24', WORKER_WORK_CONCURRENCY: '0', OTEL_ENABLED: 'maybe', DATABASE_URL: 'mysql://x' }, noDotenv), { instanceOf: ConfigError })!;
  const problems = (err as ConfigError).problems.join('\n');
  t.regex(problems, /SERVICE_DOCKER_NETWORK_PREFIX=.*without a CIDR suffix/);
  t.regex(problems, /WORKER_WORK_CONCURRENCY="0" must be at least 1/);
  t.regex(problems, /OTEL_ENABLED="maybe" must be true or false/);
  t.regex(problems, /DATABASE_URL=.*postgres:\/\//);
});

test('octets above 255 and dependent settings are refused', (t) => {
  t.throws(() => loadConfig({ SERVICE_DOCKER_NETWORK_PREFIX: '172.300.0' }, noDotenv), { message: /octet '300'/ });
  t.throws(() => loadConfig({ EMAIL_ENABLED: 'true' }, noDotenv), { message: /SMTP_HOST must be set/ });
  t.throws(() => loadConfig({ CHATAPP_PUBLIC_KEY: 'xyz' }, noDotenv), { message: /64 hex/ });
});

test('.env is read, and the real environment wins over it', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wao-env-'));
  try {
    writeFileSync(join(dir, '.env'), 'API_PORT=9100\nWEB_PORT=9101\n');
    const { env } = loadConfig({ WEB_PORT: '9200' }, join(dir, '.env'));
    t.is(env.API_PORT, 9100);
    t.is(env.WEB_PORT, 9200);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('.env.example lists every variable and is current', (t) => {
  const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
  t.is(example, renderEnvExample(), 'run `npm run env:example`');
  for (const name of Object.keys(ENV_SCHEMA)) t.regex(example, new RegExp(`^${name}=`, 'm'));
});

test('the README configuration table names every variable', (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  t.is(readme, withConfigTable(readme), 'run `npm run env:example`');
  const missing = Object.keys(ENV_SCHEMA).filter((name) => !readme.includes(`\`${name}\``));
  t.deepEqual(missing, []);
});

/** The settings the interface contract names (its deployment facts, channels and features). */
const CONTRACT_VARIABLES = [
  'PUBLIC_BASE_URL', 'WORKER_CONTROL_CONCURRENCY', 'WORKER_WORK_CONCURRENCY', 'SERVICE_DOCKER_NETWORK_PREFIX', 'OTEL_ENABLED',
  'EMAIL_ENABLED', 'BOTAPP_MODE', 'CHATAPP_PUBLIC_KEY', 'FLOWS_AVAILABLE',
];

test('every variable the interface contract names is in the schema', (t) => {
  const missing = CONTRACT_VARIABLES.filter((n) => !(n in ENV_SCHEMA));
  t.deepEqual(missing, []);
});
