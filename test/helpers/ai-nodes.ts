import { QueryTypes } from 'sequelize';
import { kernelOf } from '../../kernel/context.ts';
import { runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../workflows-helpers.ts';
import { startScriptedProvider, type ScriptedProvider } from './scripted-provider.ts';

export interface AiNodesKernel {
  k: WorkflowsKernel;
  provider: ScriptedProvider;
  /** owner-token's (entity e-1) default model key */
  keyId: string;
  /** a workspace of e-1 */
  workspaceId: string;
  /** saves a manual workflow of these steps (a `start` trigger is put in front) and runs it to completed, failed or paused */
  run(steps: Record<string, unknown>[], input?: unknown, opts?: { token?: string; workspace_id?: string | null }): Promise<any>;
  /** the model calls recorded for a run (models' usage accounting) */
  modelCalls(runId: string): Promise<{ purpose: string; workspace_id: string | null; input_tokens: number; output_tokens: number }[]>;
  close(): Promise<void>;
}

/**
 * A kernel for the AI node types' tests: workspaces, workflows, every node type, models pointed
 * at a scripted provider (no retries: a provider error fails at once), plus `extra` packages;
 * e-1 gets a default model key and a workspace.
 */
export async function startAiNodesKernel(label: string, opts: { extra?: Record<string, Record<string, string>> } = {}): Promise<AiNodesKernel> {
  const provider = await startScriptedProvider();
  let k: WorkflowsKernel;
  try {
    k = await startWorkflowsKernel(label, { plugins: ['models'], extra: opts.extra, env: { MODEL_OPENAI_BASE_URL: `${provider.url}/v1`, MODEL_MAX_RETRIES: '0' } });
  } catch (err) {
    await provider.close();
    throw err;
  }
  const key = await k.call('/api/v1/api-keys', { method: 'POST', token: 'owner-token', json: { name: 'Key', provider: 'openai', api_key: 'sk-test-0123456789abcdef', default_model: 'gpt-test', is_default: true } });
  if (key.status !== 201) throw new Error(`key create answered ${key.status}: ${key.text}`);
  const workspaceId = await k.createWorkspace('owner-token');
  let n = 0;
  return {
    k,
    provider,
    keyId: key.body.id,
    workspaceId,
    async run(steps, input = {}, runOpts = {}) {
      const token = runOpts.token ?? 'owner-token';
      const first = steps[0] as { id: string };
      const wf = await k.createWorkflow(token, { name: `ai ${++n}`, steps: [{ id: 'start', type: 'trigger', next: [first.id] }, ...steps] });
      const workspace = runOpts.workspace_id === undefined ? workspaceId : runOpts.workspace_id;
      const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token, json: { input, wait: true, ...(workspace ? { workspace_id: workspace } : {}) } });
      if (started.status !== 200 && started.status !== 202) throw new Error(`run start answered ${started.status}: ${started.text}`);
      return runUntil(k, token, started.body.run_id ?? started.body.id, ['completed', 'failed', 'paused']);
    },
    async modelCalls(runId) {
      return kernelOf(k.kernel.broker).db.query('SELECT purpose, workspace_id::text AS workspace_id, input_tokens, output_tokens FROM model_calls WHERE run_id::text = $1 ORDER BY created_at, id', { bind: [runId], type: QueryTypes.SELECT });
    },
    async close() {
      await k.close();
      await provider.close();
    },
  };
}
