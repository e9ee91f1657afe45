/**
 * Two brokers over the real NATS transporter: the document built on one node
 * carries the routes and our documentation keys of a service that runs only on
 * the other, as received in its INFO packet.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { ServiceBroker, type BrokerOptions } from 'moleculer';
import '../kernel/openapi/action-schema.ts';
import { buildOpenApi } from '../kernel/openapi/build.ts';
import type { ParameterObject } from '../kernel/openapi/types.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';

const NATS_URL = 'nats://127.0.0.1:4222';

function natsReachable(): Promise<void> {
	return new Promise((resolve, reject) => {
		const socket = connect(4222, '127.0.0.1');
		socket.once('connect', () => {
			socket.end();
			resolve();
		});
		socket.once('error', (error) => reject(new Error(`NATS is not reachable at ${NATS_URL}: ${error.message}`)));
	});
}

test('the remote node’s actions and documentation keys reach the document', async (t) => {
	await natsReachable();
	const run = randomUUID();
	// The object form of `transporter: 'nats://…'` (moleculer's typings do not accept the URL string).
	const options: BrokerOptions = { logger: false, transporter: { type: 'NATS', options: { url: NATS_URL } }, namespace: `openapi-test-${run}` };
	const serving = new ServiceBroker({ ...options, nodeID: `openapi-serving-${run}` });
	const documenting = new ServiceBroker({ ...options, nodeID: `openapi-documenting-${run}` });
	t.teardown(() => Promise.all([serving.stop(), documenting.stop()]).then(() => undefined));

	serving.createService({
		name: 'inventory',
		actions: {
			reserve: {
				rest: 'POST /:sku/reserve',
				auth: false,
				summary: 'Reserve stock',
				response: { 201: { description: 'Reserved', schema: { type: 'object', properties: { reserved: { type: 'integer' } } } } },
				params: {
					sku: { type: 'string', pattern: '^[A-Z0-9]+$' },
					// A RegExp does not survive JSON: on the other node it arrives as `{}`.
					lot: { type: 'string', pattern: /^L\d+$/, optional: true },
					qty: 'number|integer|positive',
				},
				handler: () => ({ reserved: 1 }),
			},
			count: { rest: 'GET /:sku', params: { sku: 'string' }, handler: () => 0 },
		},
	});
	await Promise.all([serving.start(), documenting.start()]);
	await documenting.waitForServices('inventory', 20_000);

	const services = documenting.registry.getServiceList({ withActions: true, grouping: true });
	const inventory = services.find((service) => service.name === 'inventory');
	t.false(inventory?.local, 'the service is known on this node only through the transporter');

	const doc = buildOpenApi({ services, basePath: '/api/v1', info: { title: 'Remote', version: '1.0.0' } });
	const reserve = doc.paths['/api/v1/inventory/{sku}/reserve']?.post;
	if (!reserve) return t.fail(`no reserve route in ${Object.keys(doc.paths).join(', ')}`);
	t.is(reserve.operationId, 'inventory.reserve');
	t.is(reserve.summary, 'Reserve stock');
	t.deepEqual(reserve.security, []);
	t.false('401' in reserve.responses);
	const { headers, ...created } = reserve.responses['201'] as { headers?: Record<string, unknown> };
	t.deepEqual(created, {
		description: 'Reserved',
		content: { 'application/json': { schema: { type: 'object', properties: { reserved: { type: 'integer' } } } } },
	});
	t.truthy(headers?.Location, 'a 201 documents its Location header');
	t.deepEqual((reserve.parameters as ParameterObject[])[0], { name: 'sku', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Z0-9]+$' } });
	t.deepEqual(reserve.requestBody, {
		required: true,
		content: {
			'application/json': {
				schema: { type: 'object', properties: { lot: { type: 'string' }, qty: { type: 'integer', exclusiveMinimum: 0 } }, required: ['qty'] },
			},
		},
	});
	const count = doc.paths['/api/v1/inventory/{sku}']?.get;
	t.deepEqual(count?.security, undefined, 'a route without auth: false keeps the bearer requirement');
	t.true(count !== undefined && '401' in count.responses);
	await t.notThrowsAsync(validateOpenApi(doc));
});
