import test from 'ava';
import { startWorkspacesKernel, type WorkspacesKernel } from './helpers/workspaces-kernel.ts';
import { writePackage } from './helpers/packages.ts';

let ws: WorkspacesKernel;
test.before(async () => {
  ws = await startWorkspacesKernel('workspaces_capabilities');
});
test.after.always(async () => {
  await ws?.close();
});

const OWNER = 'owner-token';

function writeCapability(name: string, kind: string, metadata: Record<string, unknown>): string {
  return writePackage(ws.scratch, name, {
    kind,
    body: `export default { name: ${JSON.stringify(name)}, metadata: ${JSON.stringify(metadata)}, actions: { execute: { visibility: 'public', handler: () => ({ ok: true }) } } };\n`,
  });
}

test.serial('with no tool, node or channel package loaded, the lists are empty', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const res = await ws.call(`/api/v1/workspaces/${w.id}/capabilities`, { token: 'member-token' });
  t.is(res.status, 200);
  t.deepEqual(res.body, { workspace_id: w.id, tools: [], node_types: [], channels: [] });
});

test.serial('hot-loaded tools, node types and channels appear at once and go when unloaded', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const tool = writeCapability('tool-echo', 'tool', { tool: { name: 'echo', description: 'Repeats its input' } });
  const node = writeCapability('node-delay', 'node', { nodeType: { type: 'delay', version: [1], outputs: ['main'] } });
  const channel = writeCapability('channel-chat', 'channel', { channel: { name: 'chat', inbound: true } });
  const bare = writeCapability('tool-bare', 'tool', {});
  for (const dir of [tool, node, channel, bare]) t.is((await ws.kernel.loader.load(dir)).state, 'loaded');

  const res = await ws.call(`/api/v1/workspaces/${w.id}/capabilities`, { token: OWNER });
  t.is(res.status, 200);
  const node_id = ws.kernel.broker.nodeID;
  t.deepEqual(res.body, {
    workspace_id: w.id,
    tools: [
      { service: 'tool-bare', package: 'tool-bare', kind: 'tool', description: null, nodes: [node_id] },
      { service: 'tool-echo', package: 'tool-echo', kind: 'tool', description: { name: 'echo', description: 'Repeats its input' }, nodes: [node_id] },
    ],
    node_types: [{ service: 'node-delay', package: 'node-delay', kind: 'node', description: { type: 'delay', version: [1], outputs: ['main'] }, nodes: [node_id] }],
    channels: [{ service: 'channel-chat', package: 'channel-chat', kind: 'channel', description: { name: 'chat', inbound: true }, nodes: [node_id] }],
  });

  await ws.kernel.loader.unload(tool);
  await ws.kernel.loader.unload(channel);
  const after = await ws.call(`/api/v1/workspaces/${w.id}/capabilities`, { token: OWNER });
  t.deepEqual(after.body.tools.map((e: { service: string }) => e.service), ['tool-bare']);
  t.deepEqual(after.body.channels, []);
  t.is(after.body.node_types.length, 1);
  await ws.kernel.loader.unload(node);
  await ws.kernel.loader.unload(bare);
  t.deepEqual((await ws.call(`/api/v1/workspaces/${w.id}/capabilities`, { token: OWNER })).body.node_types, []);
});
