import { ENV_SCHEMA, type VarSpec } from './schema.ts';

/** Renders .env.example from the schema: every variable, grouped, with its doc line and default. */
export function renderEnvExample(): string {
  const lines = ['# Every environment variable the service reads, with its default.', '# Generated from config/schema.ts by `npm run env:example`; a test keeps it current.', ''];
  let group = '';
  for (const [name, spec] of Object.entries(ENV_SCHEMA) as [string, VarSpec][]) {
    if (spec.group !== group) {
      if (group) lines.push('');
      lines.push(`# --- ${spec.group} ---`);
      group = spec.group;
    }
    const allowed = spec.values ? ` (${spec.values.join(' | ')})` : '';
    lines.push(`# ${spec.doc}${allowed}`, `${name}=${spec.default ?? ''}`);
  }
  return lines.join('\n') + '\n';
}
