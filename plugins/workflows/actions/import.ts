import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { definitionView } from '../store/definitions.ts';
import { DEFINITION_SCHEMA, STEP_SCHEMA } from '../schemas.ts';
import { importN8n } from '../import/n8n.ts';
import { importNodeRed } from '../import/node-red.ts';
import { importMake } from '../import/make.ts';
import { ImportError, type ImportedDefinition } from '../import/graph.ts';
import { hostileShape } from '../import/hostile.ts';
import { draftProblems } from '../ai-edit/draft-check.ts';
import { checkedBody } from './definitions.ts';
import type { WorkflowsAction } from '../service.ts';

const IMPORT_FORMATS = ['n8n', 'node-red', 'make'] as const;
type Format = (typeof IMPORT_FORMATS)[number];

interface ImportParams {
  format: Format;
  data: unknown;
  name?: string;
  flow?: string;
  save: boolean;
}

const IMPORTERS: Record<Format, (data: unknown, p: ImportParams) => ImportedDefinition> = {
  n8n: (data, p) => importN8n(data, p.name),
  'node-red': (data, p) => importNodeRed(data, p.name, p.flow),
  make: (data, p) => importMake(data, p.name),
};

const WARNING_SCHEMA = { type: 'object', properties: { source: { type: 'string' }, message: { type: 'string' } }, required: ['source', 'message'] };
const MAPPING_SCHEMA = {
  type: 'object',
  properties: { source: { type: 'string' }, source_id: { type: 'string' }, source_type: { type: 'string' }, step_id: { type: 'string' }, type: { type: 'string' } },
  required: ['source', 'source_id', 'source_type', 'step_id', 'type'],
};
const REPORT_SCHEMA = {
  type: 'object',
  properties: {
    source: { type: 'string' }, source_type: { type: 'string' }, step_id: { type: 'string' },
    status: { type: 'string', enum: ['mapped', 'approximated', 'unmapped'] }, notes: { type: 'array', items: { type: 'string' } }, items: {},
  },
  required: ['source', 'source_type', 'step_id', 'status', 'notes'],
};
const CREDENTIAL_SCHEMA = { type: 'object', properties: { source: { type: 'string' }, credential_type: { type: 'string' }, name: { type: 'string' }, variable: { type: 'string' } }, required: ['source', 'credential_type', 'name', 'variable'] };
const EXTRAS = {
  warnings: { type: 'array', items: WARNING_SCHEMA },
  mapping: { type: 'array', items: MAPPING_SCHEMA },
  report: { type: 'array', items: REPORT_SCHEMA, description: 'n8n: every source node, mapped, approximated (notes say what differs) or unmapped (notes say why; it became a note passing its input on).' },
  credentials: { type: 'array', items: CREDENTIAL_SCHEMA, description: 'n8n: credentials the nodes used, never imported: each is an unset secret workflow variable.' },
};
const DRAFT_SCHEMA = { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' }, steps: { type: 'array', items: STEP_SCHEMA }, variables: { type: 'object' } }, required: ['name', 'description', 'steps', 'variables'] };

/**
 * `POST /api/v1/workflows/import`: an export of n8n (workflow JSON), Node-RED (flow JSON) or
 * Make (scenario blueprint) becomes a definition: nodes with an equivalent are mapped, the rest
 * become pass-through notes, and `warnings` says what was not carried over. Saved (201) unless
 * `save: false`, which answers the draft (200) for the editor; either way it is validated like
 * a save.
 */
export const importWorkflow: WorkflowsAction = {
  rest: 'POST /import',
  location: '/workflows/{workflow.id}',
  summary: 'Import a workflow exported from n8n, Node-RED or Make',
  description:
    '`data` is the export (the parsed JSON, or its text). Nodes without an equivalent here become `note` steps that pass their input on; `warnings` lists them and everything else not carried over (Node-RED function code is never imported). `save: false` answers the draft without storing it. The result is validated like a save (422 with every problem).',
  tags: ['workflows'],
  params: {
    format: { type: 'enum', values: [...IMPORT_FORMATS] },
    data: { type: 'multi', rules: [{ type: 'object' }, { type: 'array', max: 5000 }, { type: 'string', min: 2, max: 5_000_000 }] },
    name: { type: 'string', min: 1, max: 200, trim: true, optional: true },
    flow: { type: 'string', min: 1, max: 200, optional: true },
    save: { type: 'boolean', default: true, convert: true },
  },
  response: {
    200: { type: 'object', properties: { definition: DRAFT_SCHEMA, ...EXTRAS }, required: ['definition', 'warnings', 'mapping'] },
    201: { type: 'object', properties: { workflow: DEFINITION_SCHEMA, ...EXTRAS }, required: ['workflow', 'warnings', 'mapping'] },
  },
  async handler(ctx: Context<ImportParams>) {
    const who = identityOf(ctx);
    const p = ctx.params;
    if (p.flow !== undefined && p.format !== 'node-red') throw WORKFLOWS_ERR.IMPORT_UNREADABLE('`flow` picks a tab of a Node-RED export; it means nothing for other formats.', { field: 'flow' });
    let data = p.data;
    if (typeof data === 'string') {
      try {
        data = JSON.parse(data);
      } catch {
        throw WORKFLOWS_ERR.IMPORT_UNREADABLE(`\`data\` is text that is not JSON; send the ${p.format} export as JSON.`, { field: 'data' });
      }
    }
    const hostile = hostileShape(data);
    if (hostile) throw WORKFLOWS_ERR.IMPORT_UNREADABLE(`The import was refused: ${hostile.message} (${hostile.field}).`, { field: hostile.field });
    let imported: ImportedDefinition;
    try {
      imported = IMPORTERS[p.format](data, p);
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      throw WORKFLOWS_ERR.IMPORT_UNREADABLE(`This is not a ${p.format} export: ${err.message}.`, { field: err.field });
    }
    // the shape a save's params declare (an import does not pass through them), then a save's own check
    const variables = imported.variables ?? {};
    const draft = draftProblems(this.broker, this.nodeTypes, { name: imported.name, description: imported.description, steps: imported.steps, variables });
    if (!draft.body) throw WORKFLOWS_ERR.INVALID_DEFINITION(`The workflow has ${draft.problems.length} problem(s): ${draft.problems.map((x) => x.message).join(' ')}`, { errors: draft.problems });
    const { body, triggerType } = checkedBody(this, draft.body);
    const extras = { warnings: imported.warnings, mapping: imported.mapping, ...(imported.report ? { report: imported.report, credentials: imported.credentials ?? [] } : {}) };
    if (!p.save) return { definition: { name: body.name, description: body.description ?? '', steps: body.steps, variables: body.variables ?? {} }, ...extras };
    const row = await this.definitions.create(who.entity_id, who.id, body, triggerType);
    (ctx.meta as { $statusCode?: number }).$statusCode = 201;
    return { workflow: definitionView(row), ...extras };
  },
};
