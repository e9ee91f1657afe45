import type { NodeTypeDeclaration } from './contract.ts';

/**
 * docs/nodes.md, rendered from the node types' declarations (their `metadata.nodeType`): one
 * section per type with its config keys (type, default, description, example), outputs,
 * branches, side effect and step failure codes. `npm run docs:nodes` writes it;
 * test/nodes-docs.test.ts fails when the file is stale.
 */
type Schema = Record<string, unknown>;

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function json(value: unknown): string {
  return `\`${cell(JSON.stringify(value))}\``;
}

function typeOf(s: Schema): string {
  if (s.type !== undefined) return ([s.type].flat() as string[]).join(' \\| ');
  if (Array.isArray(s.enum)) return 'enum';
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (alternatives) return alternatives.map(typeOf).join(' \\| ');
  return 'any';
}

function keyRows(schema: Schema): string[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(props).map(([key, s]) => {
    const type = Array.isArray(s.enum) ? `${typeOf(s)}: ${(s.enum as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}` : typeOf(s);
    const dflt = required.has(key) ? '*required*' : 'default' in s ? json(s.default) : '—';
    const example = Array.isArray(s.examples) && s.examples.length ? json(s.examples[0]) : '—';
    return `| \`${key}\` | ${type} | ${dflt} | ${cell(String(s.description ?? s.title ?? ''))} | ${example} |`;
  });
}

function effectOf(d: NodeTypeDeclaration): string {
  const u = d.uncertain_effect;
  const uncertain = u === true ? 'always' : u && typeof u === 'object' ? `when \`${u.config_key}\` is ${u.values.map((v) => `\`${v}\``).join(', ')}` : 'no';
  return `side effect: ${d.side_effect ? `\`${d.side_effect}\`` : 'not declared'}; uncertain effect (reconciled, never repeated): ${uncertain}`;
}

function section(d: NodeTypeDeclaration): string {
  const lines = [`<a id="${d.type}"></a>`, '', `## \`${d.type}\`${d.title ? ` — ${d.title}` : ''}`, '', d.description ?? '', ''];
  const facts = [`category: ${d.category}`, `version: ${d.version}`, `outputs: ${d.outputs.map((o) => `\`${o}\``).join(', ') || '—'}`];
  if (d.branch_targets?.length) facts.push(`branch targets: ${d.branch_targets.map((b) => `\`${b}\``).join(', ')}`);
  if (d.entry) facts.push('entry node');
  if (d.loop) facts.push('loop construct');
  if (d.skip_at_runtime) facts.push('skipped at runtime');
  if (d.checkpoints) facts.push('durable (commits checkpoints)');
  lines.push(`${facts.join('; ')}.`, '', `${effectOf(d)}.`, '');
  const rows = keyRows(d.config_schema as Schema);
  if (rows.length) lines.push('| key | type | default | description | example |', '|---|---|---|---|---|', ...rows, '');
  if (d.failures && Object.keys(d.failures).length) {
    lines.push('| failure code | when |', '|---|---|', ...Object.entries(d.failures).map(([code, when]) => `| \`${code}\` | ${cell(when)} |`), '');
  }
  return lines.join('\n');
}

export function renderNodeDocs(declarations: NodeTypeDeclaration[]): string {
  const sorted = [...declarations].sort((a, b) => a.category.localeCompare(b.category) || a.type.localeCompare(b.type));
  const head = [
    '# Workflow node types',
    '',
    '<!-- Generated from each node type\'s declaration (nodes/*/index.ts, metadata.nodeType) by `npm run docs:nodes`; do not edit by hand. -->',
    '',
    'Every step also accepts `config.timeout` (seconds; missing or null: no outer deadline). A config is checked against its schema when the',
    'definition is saved (422 by step and field); a value given as a template is checked again once resolved, and a failing one fails the',
    'step with `BAD_CONFIG`. The contract between the engine and a node type is in plugins/workflows/README.md.',
    '',
    'Every step but entry, loop, branching, note and durable ones also accepts `config.each` (a list, usually a template): it then runs once',
    'per element with `{{item}}`, `{{item_index}}` and `{{item_origin}}` bound, its output the list of the elements\' outputs, each element',
    'with its own receipt (a failure names `item_index`; `EACH_UNSUPPORTED` when an element would pause or answer the run); with',
    '`each_flat: true` an element answering a list gives its elements as items. `condition`,',
    '`switch` and `filter` given `items` route each item: a branch receives its items as its input and is not taken without any.',
    '',
    '| type | category | title |',
    '|---|---|---|',
    ...sorted.map((d) => `| [\`${d.type}\`](#${d.type}) | ${d.category} | ${d.title ?? ''} |`),
    '',
  ];
  return [...head, ...sorted.map(section)].join('\n');
}
