import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Workflow JSON fixtures of the node types (`nodes/<type>/test/fixtures/*.json`), run through
 * the engine by test/nodes-fixtures.test.ts. A fixture saves `definition` and either expects
 * the save to be refused (`expect_save`) or runs it once per entry of `runs` (through one
 * binding when `binding` is true, so state kept across a binding's runs shows), checking each
 * run's status and output and each named step's status, output and error code.
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
  binding?: boolean;
  runs?: RunExpectation[];
  expect_save?: { status: number; errors: { field: string; type: string }[] };
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
