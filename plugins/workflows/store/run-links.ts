import { createHash } from 'node:crypto';
import type { Snapshot } from './definitions.ts';
import type { Sql } from './sql.ts';

/** A child run of a subworkflow step (migrations/008-run-links.ts). */
export interface RunLink {
  child_run_id: string;
  parent_run_id: string;
  parent_step_id: string;
  item_index: number;
  depth: number;
  snapshot_hash: string;
}

/** What a child run executes, as a hash: the parent's continuation pins it, a resume compares it. */
export function snapshotHash(s: Snapshot): string {
  return createHash('sha256').update(JSON.stringify({ workflow_id: s.workflow_id, version: s.version, steps: s.steps, variables: s.variables })).digest('hex');
}

/** Parent and child links of sub-workflow runs; every statement names entity_id. */
export class RunLinks {
  constructor(private readonly sql: Sql) {}

  /** How deep a run is nested: 0 for a run nobody's step started. */
  async depthOf(entityId: string, runId: string): Promise<number> {
    const row = await this.sql.one<{ depth: number }>('SELECT depth FROM workflow_run_links WHERE entity_id = $1 AND child_run_id = $2', [entityId, runId]);
    return row?.depth ?? 0;
  }

  /**
   * Links a child id to its parent step before the child run exists (so a crash in between
   * leaves a link whose run a resume creates). Answers the link now stored under that id:
   * another parent's, when the id was taken.
   */
  async link(entityId: string, l: RunLink): Promise<RunLink | undefined> {
    await this.sql.exec(
      `INSERT INTO workflow_run_links (child_run_id, entity_id, parent_run_id, parent_step_id, item_index, depth, snapshot_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (child_run_id) DO NOTHING`,
      [l.child_run_id, entityId, l.parent_run_id, l.parent_step_id, l.item_index, l.depth, l.snapshot_hash],
    );
    return this.sql.one<RunLink>('SELECT * FROM workflow_run_links WHERE entity_id = $1 AND child_run_id = $2', [entityId, l.child_run_id]);
  }

  /** Whether a run id is taken by any run, of any entity (a child id must be fresh). */
  async runExists(runId: string): Promise<boolean> {
    return (await this.sql.one('SELECT 1 AS x FROM workflow_runs WHERE id = $1', [runId])) !== undefined;
  }

  /** The children of one parent step with their runs' status, by item index. */
  childrenOf(entityId: string, parentRunId: string, parentStepId: string): Promise<(RunLink & { status: string | null })[]> {
    return this.sql.rows(
      `SELECT l.*, r.status FROM workflow_run_links l LEFT JOIN workflow_runs r ON r.id = l.child_run_id AND r.entity_id = l.entity_id
       WHERE l.entity_id = $1 AND l.parent_run_id = $2 AND l.parent_step_id = $3 ORDER BY l.item_index`,
      [entityId, parentRunId, parentStepId],
    );
  }

  /** Every child of these runs, and the link of each of them that is a child itself. */
  async around(entityId: string, runIds: string[]): Promise<{ children: (RunLink & { status: string | null; workflow_id: string | null })[]; parents: RunLink[] }> {
    if (runIds.length === 0) return { children: [], parents: [] };
    const children = await this.sql.rows<RunLink & { status: string | null; workflow_id: string | null }>(
      `SELECT l.*, r.status, r.workflow_id FROM workflow_run_links l LEFT JOIN workflow_runs r ON r.id = l.child_run_id AND r.entity_id = l.entity_id
       WHERE l.entity_id = $1 AND l.parent_run_id = ANY($2::uuid[]) ORDER BY l.created_at, l.item_index`,
      [entityId, runIds],
    );
    const parents = await this.sql.rows<RunLink>('SELECT * FROM workflow_run_links WHERE entity_id = $1 AND child_run_id = ANY($2::uuid[])', [entityId, runIds]);
    return { children, parents };
  }
}
