import test from 'ava';
import { useTasksKernel } from './helpers/tasks-kernel.ts';
import { compileWithAjv } from './openapi-ajv.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';

const fixture = useTasksKernel(test, 'tasks_openapi');
const owner = 'owner-token';

async function documentOf(): Promise<any> {
  const res = await fixture.tk.call('/api/openapi.json');
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

test('every task route of the spec is in the OpenAPI document, which is valid', async (t) => {
  const doc = await documentOf();
  await t.notThrowsAsync(validateOpenApi(doc));
  const expected: [string, string[]][] = [
    ['/api/v1/tasks', ['get', 'post']],
    ['/api/v1/tasks/{id}', ['get', 'put', 'delete']],
    ['/api/v1/tasks/constants', ['get']],
    ['/api/v1/tasks/board', ['get']],
    ['/api/v1/tasks/board-preferences', ['get', 'put']],
    ['/api/v1/tasks/{id}/move', ['post']],
    ['/api/v1/tasks/{id}/retry', ['post']],
    ['/api/v1/tasks/{id}/hitl-response', ['post']],
    ['/api/v1/tasks/{id}/approval', ['post']],
    ['/api/v1/tasks/{id}/resume-delivery-review', ['post']],
    ['/api/v1/tasks/{id}/logs', ['get', 'post']],
    ['/api/v1/tasks/{id}/attachments', ['get', 'post']],
    ['/api/v1/tasks/{id}/history', ['get']],
    ['/api/v1/tasks/categories', ['get', 'post']],
    ['/api/v1/tasks/templates', ['get', 'post']],
    ['/api/v1/tasks/templates/{template_id}/instantiate', ['post']],
    ['/api/v1/tasks/sla-policies', ['get', 'post']],
    ['/api/v1/tasks/sla-policies/{sla_policy_id}', ['get', 'put', 'delete']],
    ['/api/v1/tasks/import', ['post']],
    ['/api/v1/public/task/{code}', ['get']],
    ['/api/v1/public/task/{code}/update-status', ['post']],
    ['/api/v1/public/task/{code}/complete', ['post']],
    ['/api/v1/public/task/{code}/evaluate', ['post']],
  ];
  for (const [path, methods] of expected) {
    t.truthy(doc.paths[path], `${path} is documented`);
    for (const method of methods) t.truthy(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
  }
  t.deepEqual(doc.paths['/api/v1/public/task/{code}'].get.security, [], 'the public review needs no bearer token');
  t.truthy(doc.paths['/api/v1/tasks/{id}/attachments'].post.requestBody.content['multipart/form-data']);
});

test('answers match their declared response schemas', async (t) => {
  const doc = await documentOf();
  const schemaOf = (path: string, method: string, status = '200') => compileWithAjv(doc.paths[path][method].responses[status].content['application/json'].schema);
  const created = await fixture.tk.call('/api/v1/tasks', { method: 'POST', token: owner, json: { title: 'documented', deadline: '2030-01-01' } });
  t.true(schemaOf('/api/v1/tasks', 'post', '201')(created.body), 'create');
  const checks: [string, string, string][] = [
    [`/api/v1/tasks/${created.body.id}`, '/api/v1/tasks/{id}', 'get'],
    ['/api/v1/tasks?limit=5', '/api/v1/tasks', 'get'],
    ['/api/v1/tasks/board', '/api/v1/tasks/board', 'get'],
    ['/api/v1/tasks/constants', '/api/v1/tasks/constants', 'get'],
    ['/api/v1/tasks/board-preferences', '/api/v1/tasks/board-preferences', 'get'],
    [`/api/v1/tasks/${created.body.id}/history`, '/api/v1/tasks/{id}/history', 'get'],
  ];
  for (const [url, path, method] of checks) {
    const res = await fixture.tk.call(url, { token: owner });
    t.is(res.status, 200, url);
    t.true(schemaOf(path, method)(res.body), url);
  }
});

test("a template's variables are documented as a flat record of strings, numbers or booleans (what a generated client types them as)", async (t) => {
  const doc = await documentOf();
  const body = doc.paths['/api/v1/tasks/templates/{template_id}/instantiate'].post.requestBody.content['application/json'].schema;
  const variables = body.properties.variables;
  t.is(variables.type, 'object');
  t.deepEqual(variables.additionalProperties, { anyOf: [{ type: 'string', maxLength: 10_000 }, { type: 'number' }, { type: 'boolean' }] });
  const accepts = compileWithAjv(body);
  t.true(accepts({ variables: { customer: 'ACME', seats: 3, vip: true } }));
  t.false(accepts({ variables: { customer: { nested: true } } }), 'a nested value is not a variable');
});
