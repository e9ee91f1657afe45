import test from 'ava';
import ExcelJS from 'exceljs';
import sharp from 'sharp';
import aggregate from '../nodes/aggregate/index.ts';
import audio from '../nodes/audio/index.ts';
import classifier from '../nodes/classifier/index.ts';
import condition from '../nodes/condition/index.ts';
import dedupe from '../nodes/dedupe/index.ts';
import extract from '../nodes/extract/index.ts';
import extractfromfile from '../nodes/extractfromfile/index.ts';
import filter from '../nodes/filter/index.ts';
import foreach from '../nodes/foreach_subworkflow/index.ts';
import http from '../nodes/http/index.ts';
import image from '../nodes/image/index.ts';
import llm from '../nodes/llm/index.ts';
import merge from '../nodes/merge/index.ts';
import sort from '../nodes/sort/index.ts';
import split from '../nodes/split/index.ts';
import subworkflow from '../nodes/subworkflow/index.ts';
import switchNode from '../nodes/switch/index.ts';
import video from '../nodes/video/index.ts';
import { b64, generate } from '../nodes/media/test/helpers/generate.ts';
import { startLongStepsBroker, type LongStepsBroker } from './helpers/long-steps-broker.ts';

/**
 * Every node type whose step can run long honours `config.timeout` and a cancel of its run
 * (`workflows.run.interrupt`) itself: the step fails with STEP_TIMEOUT or STEP_INTERRUPTED and
 * its work stops, not only the engine's wait for it (plugins/workflows/engine/node-call.ts).
 * Long means: many items for the data nodes, a big file for the media and file nodes, and for
 * the others a model, child run or HTTP server that never answers (the stand-ins of
 * helpers/long-steps-broker.ts). Not here: `code` (the sandbox enforces the limit and the cancel:
 * nodes/code/test/code.test.ts), the durable `agent` and `tool` (the engine stops them at their
 * checkpoints), `notify` (a message handed over cannot be taken back), and the node types whose
 * work is bounded and short (trigger, transform, limit, loop, datetime, wait, media, ...).
 */
interface LongStep {
  type: string;
  /** config and input of a step that would run long */
  long: () => Promise<{ config: Record<string, unknown>; input?: unknown }>;
  /** where the step waits: the cancel is sent once it got there; else at the step's first yield */
  waitsOn?: 'model' | 'child' | 'request';
}

const WF = '0190b3a2-7c1e-7d4a-9f1b-2c3d4e5f6a7b';
const MANY = 100_000;
// long strings a backtracking-free but costly pattern is tried on, one item each
const items = Array.from({ length: MANY }, (_, i) => ({ s: `${'ab'.repeat(200)}${i}`, g: i % 97, n: (i * 7919) % MANY, list: [i, i + 1] }));
const slowMatch = [{ field: 's', operator: 'matches', value: '(ab)+9$' }];
const unmatched = (side: string) => Array.from({ length: 3000 }, (_, i) => ({ k: `${side}${i}` }));

async function bigSheet(): Promise<string> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('rows');
  sheet.addRow(['id', 'name', 'amount']);
  for (let i = 0; i < 30_000; i++) sheet.addRow([i, `row ${i}`, i * 1.5]);
  return Buffer.from(await book.xlsx.writeBuffer()).toString('base64');
}

const CASES: LongStep[] = [
  { type: 'filter', long: async () => ({ config: { conditions: slowMatch }, input: items }) },
  { type: 'condition', long: async () => ({ config: { items, conditions: slowMatch, branches: { true: 'yes', false: 'no' } } }) },
  { type: 'switch', long: async () => ({ config: { items, cases: [{ conditions: slowMatch, next: 'nine' }] } }) },
  { type: 'sort', long: async () => ({ config: { keys: [{ field: 'n' }] }, input: items }) },
  { type: 'split', long: async () => ({ config: { field: 'list' }, input: items }) },
  { type: 'aggregate', long: async () => ({ config: { group_by: ['g'], aggregations: [{ op: 'collect', field: 's' }] }, input: items }) },
  { type: 'dedupe', long: async () => ({ config: { keys: ['s'] }, input: items }) },
  { type: 'merge', long: async () => ({ config: { mode: 'by_fields', lists: [unmatched('a'), unmatched('b')], fields: [{ left: 'k', right: 'k' }] } }) },
  { type: 'extractfromfile', long: async () => ({ config: { content: await bigSheet(), format: 'xlsx' } }) },
  { type: 'llm', waitsOn: 'model', long: async () => ({ config: { prompt: 'Say hello.' } }) },
  { type: 'extract', waitsOn: 'model', long: async () => ({ config: { input: 'Ann paid 12 EUR.', schema: { type: 'object', properties: { name: { type: 'string' } } } } }) },
  { type: 'classifier', waitsOn: 'model', long: async () => ({ config: { input: 'My card was charged twice.', categories: [{ name: 'billing' }, { name: 'bug' }] } }) },
  { type: 'http', waitsOn: 'request', long: async () => ({ config: { url: `${n.slowUrl}/never` } }) },
  { type: 'subworkflow', waitsOn: 'child', long: async () => ({ config: { workflow_id: WF, input: { n: 1 } } }) },
  { type: 'foreach_subworkflow', waitsOn: 'child', long: async () => ({ config: { workflow_id: WF, items: [1, 2, 3] } }) },
  {
    type: 'audio',
    long: async () => ({ config: { operation: 'transcode', content: b64(generate('sine=duration=60', [], 'wav')), format: 'mp3' } }),
  },
  {
    type: 'video',
    long: async () => ({ config: { operation: 'transcode', content: b64(generate('testsrc=size=160x120:rate=25:duration=20', ['-c:v', 'mpeg4', '-q:v', '10'], 'mp4')), format: 'mp4', width: 1920 } }),
  },
  {
    type: 'image',
    long: async () => ({ config: { operation: 'resize', content: (await sharp({ create: { width: 3000, height: 3000, channels: 3, background: '#3366cc' } }).png().toBuffer()).toString('base64'), width: 2900, format: 'webp' } }),
  },
];

let n: LongStepsBroker;
test.before(async () => {
  n = await startLongStepsBroker([filter, condition, switchNode, sort, split, aggregate, dedupe, merge, extractfromfile, llm, extract, classifier, http, subworkflow, foreach, audio, video, image]);
});
test.after.always(async () => n?.close());

test('the table has one entry per node type, each served', (t) => {
  const types = CASES.map((c) => c.type);
  t.is(new Set(types).size, types.length);
  for (const type of types) t.truthy(n.broker.registry.getServiceList({}).some((s: { name: string }) => s.name === `node.${type}`), type);
});

for (const c of CASES) {
  // serial: the steps are made to be long, and two at once would only slow each other down
  test.serial(`${c.type}: a tiny config.timeout fails the step with STEP_TIMEOUT`, async (t) => {
    const { config, input } = await c.long();
    const failed = await n.failure(c.type, { ...config, timeout: 0.001 }, input ?? null, `r-${c.type}-timeout`);
    t.is(failed.type, 'STEP_TIMEOUT', failed.message);
  });

  test.serial(`${c.type}: a cancel of its run stops the step with STEP_INTERRUPTED`, async (t) => {
    const { config, input } = await c.long();
    const runId = `r-${c.type}-cancel`;
    const arrived = c.waitsOn ? n.underway(c.waitsOn) : undefined;
    const running = n.failure(c.type, config, input ?? null, runId);
    if (arrived) {
      await arrived;
      n.interrupt(runId);
    } else setImmediate(() => n.interrupt(runId));
    const failed = await running;
    t.is(failed.type, 'STEP_INTERRUPTED', failed.message);
    t.regex(failed.message, /cancelled by its owner/);
  });
}
