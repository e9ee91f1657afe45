import test from 'ava';
import { startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

/**
 * The n8n import report (mapped / approximated / unmapped with the reason, generated code steps,
 * credentials as unset secret variables) and hostile imports: a `__proto__` key, a field that
 * would reach a prototype, an export of 10 MB (a precise 4xx, nothing stored).
 */
const TOKEN = 'owner-token';
let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_import_n8n');
});
test.after.always(async () => k?.close());

const total = async () => (await k.call('/api/v1/workflows', { token: TOKEN })).body.total;
type Report = { source: string; status: string; notes: string[]; step_id: string };
const node = (name: string, type: string, parameters: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({ id: name, name, type, typeVersion: 1, position: [0, 0], parameters, ...extra });
const chain = (...names: string[]) => Object.fromEntries(names.slice(0, -1).map((n, i) => [n, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]));

test.serial('the report lists every node: approximated with what differs, unmapped with why, computing expressions moved to a code step; credentials become unset secret variables', async (t) => {
  const data = {
    name: 'Report',
    nodes: [
      node('Webhook', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: 'x' }),
      { ...node('Shape', 'n8n-nodes-base.set', { assignments: { assignments: [{ name: 'total', value: '={{ $json.body.a + $json.body.b }}', type: 'number' }] } }), typeVersion: 3.4 },
      { ...node('Secret', 'n8n-nodes-base.set', { assignments: { assignments: [{ name: 'key', value: '={{ $env.API_KEY }}', type: 'string' }] } }), typeVersion: 3.4 },
      { ...node('Call', 'n8n-nodes-base.httpRequest', { url: 'https://api.example.com/x', authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' }, { credentials: { httpHeaderAuth: { id: '7', name: 'My API key' } } }), typeVersion: 4.2 },
      node('Slack', 'n8n-nodes-base.slack', { text: 'hi' }, { credentials: { slackApi: { id: '8', name: 'Team Slack' } } }),
      node('Vector store', '@n8n/n8n-nodes-langchain.vectorStorePinecone', {}),
      { ...node('Hack', 'n8n-nodes-base.set', { assignments: { assignments: [{ name: '__proto__.polluted', value: 'yes', type: 'string' }] } }), typeVersion: 3.4 },
    ],
    connections: chain('Webhook', 'Shape', 'Secret', 'Call', 'Slack', 'Vector store', 'Hack'),
  };
  const res = await k.call('/api/v1/workflows/import', { method: 'POST', token: TOKEN, json: { format: 'n8n', data } });
  t.is(res.status, 201, res.text);
  const report = Object.fromEntries((res.body.report as Report[]).map((r) => [r.source, r]));
  t.is(report.Webhook.status, 'approximated');
  t.regex(report.Webhook.notes[0], /params, webhookUrl and executionMode are absent/);
  t.is(report.Shape.status, 'mapped');
  t.regex(report.Shape.notes.join(' '), /generated code step 'shape_expressions' \(n8n dialect\): \{\{ \$json\.body\.a \+ \$json\.body\.b \}\}/);
  const steps = Object.fromEntries(res.body.workflow.steps.map((s: { id: string }) => [s.id, s]));
  t.like(steps.shape_expressions, { type: 'code', config: { dialect: 'n8n', code: 'return { e0: ($json.body.a + $json.body.b) };' } });
  t.deepEqual(steps.shape.config.set, { total: '{{shape_expressions.output[$index].e0}}' });
  t.is(report.Secret.status, 'unmapped');
  t.regex(report.Secret.notes[0], /reads \$env: environment variables of the n8n instance are not imported/);
  t.is(steps.secret.type, 'note', 'an unmapped node passes its input on');
  t.is(report.Slack.status, 'unmapped');
  t.regex(report.Slack.notes[0], /connector nodes wait for the integrations issue/);
  t.regex(report['Vector store'].notes[0], /the rag node waits for the memories issue/);
  t.is(report.Hack.status, 'unmapped');
  t.regex(report.Hack.notes[0], /a field named '__proto__\.polluted' is not accepted/);
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.is(report.Call.status, 'approximated');
  t.deepEqual(steps.call.config.headers, { Authorization: '{{n8n_credential_my_api_key}}' });
  t.deepEqual(res.body.credentials, [
    { source: 'Call', credential_type: 'httpHeaderAuth', name: 'My API key', variable: 'n8n_credential_my_api_key' },
    { source: 'Slack', credential_type: 'slackApi', name: 'Team Slack', variable: 'n8n_credential_team_slack' },
  ]);
  t.deepEqual(res.body.workflow.variables, { n8n_credential_my_api_key: '', n8n_credential_team_slack: '' }, 'credentials are variables left unset');
  t.notRegex(JSON.stringify(res.body.workflow), /"id":"7"|"id":"8"/);
});

test.serial('an import with a __proto__ key anywhere is refused with 422 naming where; nothing is stored', async (t) => {
  const before = await total();
  const raw = '{"format":"n8n","data":{"nodes":[{"name":"T","type":"n8n-nodes-base.manualTrigger","parameters":{"__proto__":{"polluted":true}}}],"connections":{}}}';
  const res = await k.call('/api/v1/workflows/import', { method: 'POST', token: TOKEN, body: raw, headers: { 'Content-Type': 'application/json' } });
  t.is(res.status, 422, res.text);
  t.is(res.body.code, 'WORKFLOWS_ERR_IMPORT_UNREADABLE');
  t.is(res.body.field, 'data.nodes.0.parameters.__proto__');
  const asText = await k.call('/api/v1/workflows/import', { method: 'POST', token: TOKEN, json: { format: 'n8n', data: '{"nodes":[],"connections":{"__proto__":{}}}' } });
  t.is(asText.status, 422, asText.text);
  t.is(asText.body.field, 'data.connections.__proto__');
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.is(await total(), before);
});

test.serial('10 MB of nodes is refused with 413 before any import; too many nodes is 422 naming data.nodes; nothing is stored', async (t) => {
  const before = await total();
  const filler = 'x'.repeat(1000);
  const nodes = Array.from({ length: 10_000 }, (_, i) => ({ name: `n${i}`, type: 'n8n-nodes-base.noOp', parameters: { filler } }));
  const big = await k.call('/api/v1/workflows/import', { method: 'POST', token: TOKEN, json: { format: 'n8n', data: { nodes, connections: {} } } });
  t.is(big.status, 413, big.text.slice(0, 300));
  t.is(big.body.code, 'PAYLOAD_TOO_LARGE');
  const many = await k.call('/api/v1/workflows/import', { method: 'POST', token: TOKEN, json: { format: 'n8n', data: { nodes: nodes.slice(0, 501).map((n) => ({ ...n, parameters: {} })), connections: {} } } });
  t.is(many.status, 422, many.text.slice(0, 300));
  t.is(many.body.field, 'data.nodes');
  t.is(await total(), before);
});
