import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Workflow JSON fixtures of the node types (`nodes/<type>/test/fixtures/*.json`), run through
 * the engine by test/nodes-fixtures.test.ts. A fixture saves `definition` and either expects
 * the save to be refused (`expect_save`) or runs it once per entry of `runs` (through one
 * binding when `binding` is true, so state kept across a binding's runs shows), checking each
 * run's status and output and each named step's status, output and error code. `children` are
 * workflows saved first (a sub-workflow's child): the string "$child:<name>" anywhere in
 * `definition` becomes the id of the child of that name.
 */
export interface StepExpectation {
  status?: string;
  output?: unknown;
  error_code?: string;
  /** a regular expression the error message must match */
  error_match?: string;
}

export interface RunExpectation {
  input?: unknown;
  variables?: Record<string, unknown>;
  expect: { status: string; output?: unknown; steps?: Record<string, StepExpectation> };
}

export interface NodeFixture {
  title: string;
  definition: { name?: string; steps: unknown[]; variables?: Record<string, unknown> };
  children?: Record<string, { name?: string; steps: unknown[] }>;
  binding?: boolean;
  runs?: RunExpectation[];
  expect_save?: { status: number; errors: { field: string; type: string }[] };
}

/** The definition with every "$child:<name>" replaced by that child's id (an unknown name throws). */
export function withChildIds<T>(definition: T, ids: Record<string, string>): T {
  return JSON.parse(
    JSON.stringify(definition).replace(/"\$child:([^"]+)"/g, (_, name: string) => {
      if (!(name in ids)) throw new Error(`the fixture names no child '${name}'`);
      return JSON.stringify(ids[name]);
    }),
  ) as T;
}

export function nodeFixtures(root: string): { node: string; file: string; fixture: NodeFixture }[] {
  const out: { node: string; file: string; fixture: NodeFixture }[] = [];
  for (const node of readdirSync(join(root, 'nodes')).sort()) {
    const dir = join(root, 'nodes', node, 'test', 'fixtures');
    if (!existsSync(dir)) continue;
    // `*.workflow.json` are bare definitions a node's own test runs with the services it needs (a sandbox, an inbox)
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && !f.endsWith('.workflow.json')).sort()) {
      out.push({ node, file, fixture: JSON.parse(readFileSync(join(dir, file), 'utf8')) as NodeFixture });
    }
  }
  return out;
}
