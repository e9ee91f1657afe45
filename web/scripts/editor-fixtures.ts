/**
 * `node --import tsx web/scripts/editor-fixtures.ts`: captures what the editor's component
 * tests compare with, from a real service booted on embedded defaults (this repository's
 * packages): every shipped node type, and for each a set of configs with the server's verdict
 * (the pointers of its `bad_config` problems when saved in a workflow), and the 422 of a
 * definition with problems the form cannot foresee. Writes web/test/fixtures/editor-*.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getDefaultFormState, type Experimental_DefaultFormStateBehavior, type RJSFSchema, type ValidatorType } from '@rjsf/utils';
import { loadConfig } from '../../config/load.ts';
import { startKernel } from '../../kernel/bootstrap.ts';
import { BUILTIN_ROOTS } from '../../kernel/capabilities/discover.ts';
import { sortKeys } from './sort-keys.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
// the web app's own validator, so the defaults are the form's; imported by path because web/src
// is type-checked under the web tsconfig (bundler resolution), not the root one
const VALIDATOR_MODULE = join(ROOT, 'web', 'src', 'forms', 'rjsf-validator.ts');
const { configValidator } = (await import(VALIDATOR_MODULE)) as { configValidator: ValidatorType };
const { DEFAULT_FORM_STATE_BEHAVIOR } = (await import(join(ROOT, 'web', 'src', 'forms', 'form-defaults.ts'))) as { DEFAULT_FORM_STATE_BEHAVIOR: Experimental_DefaultFormStateBehavior };
const FIXTURES = join(ROOT, 'web', 'test', 'fixtures');
type Schema = Record<string, any>;

/** configs worth asking the server about: empty, the form's defaults, and per property a wrong type and a template */
function samplesFor(schema: Schema): { label: string; config: Record<string, unknown> }[] {
  const defaults = (getDefaultFormState(configValidator, schema as RJSFSchema, {}, schema as RJSFSchema, false, DEFAULT_FORM_STATE_BEHAVIOR) ?? {}) as Record<string, unknown>;
  const out = [{ label: 'empty', config: {} }, { label: 'form defaults', config: defaults }, { label: 'unknown key', config: { ...defaults, zz_unknown: 1 } }];
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const type = Array.isArray(sub.type) ? sub.type[0] : sub.type;
    const wrong = type === 'string' ? 12345 : type === 'object' || type === 'array' || type === 'boolean' ? 'text' : type === 'number' || type === 'integer' ? 'abc' : undefined;
    if (wrong !== undefined) out.push({ label: `${name}: wrong type`, config: { ...defaults, [name]: wrong } });
    out.push({ label: `${name}: template`, config: { ...defaults, [name]: '{{trigger.value}}' } });
    if (sub.enum) out.push({ label: `${name}: first enum value`, config: { ...defaults, [name]: sub.enum[0] } });
    if (typeof sub.minimum === 'number') out.push({ label: `${name}: below minimum`, config: { ...defaults, [name]: sub.minimum - 1 } });
    if (typeof sub.maxLength === 'number' && sub.maxLength < 10_000) out.push({ label: `${name}: too long`, config: { ...defaults, [name]: 'x'.repeat(sub.maxLength + 1) } });
  }
  return out;
}

export interface EditorFixtures {
  types: unknown;
  verdicts: { type: string; label: string; config: unknown; problems: { pointer: string; message: string }[] }[];
  unforeseen: unknown;
}

/** Asks a running service (signed in with `token`) what the fixtures record; `test/web-editor-e2e.test.ts` checks the files still say it. */
export async function captureEditorFixtures(apiUrl: string, token: string): Promise<EditorFixtures> {
  const call = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(`${apiUrl}${path}`, { method: init.method ?? 'GET', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  const types = (await call('/api/v1/workflows/node-types')).body;
  const verdicts: EditorFixtures['verdicts'] = [];
  for (const t of types.items as Schema[]) {
    for (const sample of samplesFor(t.config_schema)) {
      const step = { id: 's', type: t.type, config: sample.config, next: [] };
      const steps = t.entry ? [step] : [{ id: 't', type: 'trigger', config: {}, next: ['s'] }, step];
      const res = await call('/api/v1/workflows', { method: 'POST', json: { name: `${t.type} ${sample.label}`, steps } });
      if (res.status === 201) await call(`/api/v1/workflows/${res.body.id}`, { method: 'DELETE' });
      else if (res.status !== 422) throw new Error(`${t.type} ${sample.label}: ${res.status} ${JSON.stringify(res.body)}`);
      const bad = res.status === 422 ? (res.body.errors as { type: string; step_id?: string; pointer: string; message: string }[]).filter((e) => e.type === 'bad_config' && e.step_id === 's') : [];
      const prefix = `/steps/${t.entry ? 0 : 1}/config`;
      // the message without its leading `config.<path> `: what is wrong, as the server words it
      const problems = bad.map((e) => ({ pointer: e.pointer.slice(prefix.length), message: e.message.slice(e.message.indexOf(' ') + 1) }));
      verdicts.push({ type: t.type, label: sample.label, config: sample.config, problems: problems.sort((a, b) => `${a.pointer} ${a.message}`.localeCompare(`${b.pointer} ${b.message}`)) });
    }
  }
  const unforeseen = await call('/api/v1/workflows', {
    method: 'POST',
    json: {
      name: 'unforeseen',
      steps: [
        { id: 'start', type: 'trigger', config: {}, next: ['ghost'] },
        { id: 'hook', type: 'webhook', config: {}, next: ['call'] },
        { id: 'call', type: 'http', config: { url: 'https://example.test/', method: 'FETCH' }, next: [] },
      ],
    },
  });
  const { request_id: _r, ...problem } = unforeseen.body;
  // `nodes` names the processes serving a type: different on every start
  const stable = (types.items as Schema[]).map(({ nodes: _nodes, ...rest }) => rest);
  return { types: sortKeys(stable), verdicts, unforeseen: problem };
}

export const FIXTURE_FILES = { types: join(FIXTURES, 'editor-node-types.json'), verdicts: join(FIXTURES, 'editor-config-verdicts.json'), unforeseen: join(FIXTURES, 'editor-definition-422.json') };

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-editor-fixtures-'));
  const config = loadConfig(
    { API_PORT: '0', WEB_PORT: '0', API_HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'fatal', NODE_ENV: 'test', HOT_RELOAD: 'false', CAPABILITY_PATHS: '', DATABASE_URL: '', REDIS_URL: '', TRANSPORTER: '', ADMIN_PASSWORD: 'editor-fixtures-1', RATE_LIMIT_PER_MINUTE: '0' },
    join(dataDir, '.env'),
  );
  const kernel = await startKernel(config, { roots: BUILTIN_ROOTS.map((r) => resolve(ROOT, r)) });
  try {
    const login = await fetch(`${kernel.apiUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@localhost', password: 'editor-fixtures-1' }) });
    if (login.status !== 200) throw new Error(`login answered ${login.status}`);
    const { access_token: token } = (await login.json()) as { access_token: string };
    const f = await captureEditorFixtures(kernel.apiUrl!, token);
    for (const key of ['types', 'verdicts', 'unforeseen'] as const) writeFileSync(FIXTURE_FILES[key], `${JSON.stringify(f[key], null, 1)}\n`);
    console.log(`${(f.types as unknown[]).length} node types, ${f.verdicts.length} configs, 422 with ${(f.unforeseen as { errors?: unknown[] }).errors?.length} problems`);
  } finally {
    await kernel.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
