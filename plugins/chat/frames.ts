import { definitionOf } from '../../kernel/errors/define.ts';
import type { Pending, Settlement } from './store.ts';

/** A line of `workflows.runEventStream`: a run event (durable ones with their seq as id). */
export interface RunLine {
  id?: number;
  type: string;
  data: Record<string, unknown>;
}

/** One chat SSE frame; `id` (the run's event seq) only on durable ones. */
export interface Frame {
  id?: number;
  type: string;
  data: Record<string, unknown>;
}

/** The question tool of the agent loop: shown as a `question` frame, not as a tool call. */
const ASK_HUMAN = 'ask_human';

type Usage = { input_tokens: number; output_tokens: number };
type Terminal = { kind: 'finished'; status: string; error: { code: string; message: string } | null } | { kind: 'paused'; pending: Pending | null };

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function errorOf(value: unknown): { code: string; message: string } {
  const e = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return { code: str(e.code) ?? str(e.type) ?? 'CHAT_ERR_RUN_FAILED', message: (str(e.message) ?? 'The agent run failed.').slice(0, 2000) };
}

/**
 * One segment of an agent run as chat sees it (from its start, or a resume, to its end or
 * pause): turns run events into chat frames and gathers what the assistant message settles
 * to (the last model turn's text, the summed usage, interrupted or not, how it ended).
 */
export class RunSegment {
  private text = '';
  private usage: Usage = { input_tokens: 0, output_tokens: 0 };
  private interrupted = false;
  private terminal: Terminal | undefined;
  /** text deltas this reader saw, by round: a replayed turn sends only what was not seen */
  private readonly seen = new Map<number, string>();
  /** rounds whose committed message arrived: a live delta of theirs coming later is old news */
  private readonly settledRounds = new Set<number>();
  /** steps whose start was shown (a step's start goes out live, then again with its receipt) */
  private readonly startedSteps = new Set<string>();

  /** `workflowId`: the chat entrypoint's workflow when its run answers (its steps are shown); null for an agent's run */
  constructor(private readonly runId: string, private readonly workflowId: string | null = null) {}

  /** A finished workflow run whose steps said nothing: its reply is the run's output (replyTextOf). */
  get wantsRunOutput(): boolean {
    return this.workflowId !== null && this.terminal?.kind === 'finished' && this.terminal.status === 'completed' && this.text === '';
  }

  get ended(): boolean {
    return this.terminal !== undefined;
  }

  /** The run finished in this segment (a pause may still be followed by the run's resume). */
  get finished(): boolean {
    return this.terminal?.kind === 'finished';
  }

  /** The frames an event becomes (often none). */
  add(e: RunLine): Frame[] {
    const d = e.data ?? {};
    switch (e.type) {
      case 'run.resumed':
        // a resume after a pause starts a new segment; a worker taking the run over does not
        if (this.terminal?.kind !== 'paused') return [];
        this.text = '';
        this.usage = { input_tokens: 0, output_tokens: 0 };
        this.interrupted = false;
        this.terminal = undefined;
        return [];
      case 'agent.text.delta': {
        const text = str(d.text) ?? '';
        const round = num(d.round);
        if (this.settledRounds.has(round)) return [];
        this.seen.set(round, (this.seen.get(round) ?? '') + text);
        return text ? [{ type: 'text.delta', data: { text } }] : [];
      }
      case 'agent.message':
        return this.message(e);
      case 'step.started':
      case 'step.finished':
        return this.step(e);
      case 'agent.tool.result':
        if (d.name === ASK_HUMAN) return [];
        return [{ id: e.id, type: 'tool.result', data: { id: str(d.call_id) ?? '', name: str(d.name) ?? '', ok: d.ok === true, ...(d.error ? { error: d.error } : {}) } }];
      case 'run.paused':
        return this.paused(e);
      case 'run.finished': {
        const status = str(d.status) ?? 'failed';
        const error = status === 'failed' ? errorOf(d.error) : null;
        this.terminal = { kind: 'finished', status, error };
        if (!error) return [];
        return [{ id: e.id, type: 'error', data: { status: definitionOf(error.code)?.status ?? 500, code: error.code, title: error.message } }];
      }
      default:
        return [];
    }
  }

  private message(e: RunLine): Frame[] {
    const d = e.data;
    const round = num(d.round);
    const text = str(d.text) ?? '';
    const frames: Frame[] = [];
    const seen = this.seen.get(round) ?? '';
    // a reader that missed the live deltas of this turn (a replay) gets its text in one piece
    if (text.length > seen.length && text.startsWith(seen)) frames.push({ type: 'text.delta', data: { text: text.slice(seen.length) } });
    this.seen.set(round, text);
    this.settledRounds.add(round);
    this.text = text;
    const usage = (d.usage ?? {}) as Record<string, unknown>;
    this.usage = { input_tokens: this.usage.input_tokens + num(usage.input_tokens), output_tokens: this.usage.output_tokens + num(usage.output_tokens) };
    if (d.interrupted === true) this.interrupted = true;
    const calls = Array.isArray(d.tool_calls) ? (d.tool_calls as Record<string, unknown>[]) : [];
    for (const c of calls) if (c.name !== ASK_HUMAN) frames.push({ id: e.id, type: 'tool.call', data: { id: str(c.id) ?? '', name: str(c.name) ?? '', arguments: c.arguments ?? {} } });
    return frames;
  }

  /** a workflow run's step, as a `workflow.step` frame (an agent's run shows none) */
  private step(e: RunLine): Frame[] {
    const d = e.data;
    const stepId = str(d.step_id);
    if (this.workflowId === null || !stepId) return [];
    if (e.type === 'step.started') {
      if (this.startedSteps.has(stepId)) return [];
      this.startedSteps.add(stepId);
      return [{ ...(e.id !== undefined ? { id: e.id } : {}), type: 'workflow.step', data: { step_id: stepId, type: str(d.type), status: 'running' } }];
    }
    this.startedSteps.add(stepId);
    return [{ id: e.id, type: 'workflow.step', data: { step_id: stepId, status: str(d.status) ?? 'completed', ...(d.error ? { error: errorOf(d.error) } : {}) } }];
  }

  private paused(e: RunLine): Frame[] {
    const pause = (e.data.pause ?? {}) as Record<string, unknown>;
    const stepId = str(pause.step_id) ?? '';
    const message = str(pause.message);
    if (pause.kind === 'runtime_approval') {
      const request = (pause.request ?? {}) as Record<string, unknown>;
      const tool = str(request.action);
      this.terminal = { kind: 'paused', pending: { kind: 'approval', source: 'tool', run_id: this.runId, step_id: stepId, tool, reason: message, workflow_id: this.workflowId } };
      return [{ id: e.id, type: 'approval.required', data: { run_id: this.runId, step_id: stepId, tool, reason: message, source: 'tool' } }];
    }
    if (pause.kind === 'approval') {
      // an approval wait of the chat entrypoint's workflow: its owner decides it, here or on the run
      const reason = message ?? `The workflow waits for your approval at step '${stepId}'.`;
      this.terminal = { kind: 'paused', pending: { kind: 'approval', source: 'workflow', run_id: this.runId, step_id: stepId, tool: null, reason, workflow_id: this.workflowId } };
      return [{ id: e.id, type: 'approval.required', data: { run_id: this.runId, step_id: stepId, tool: null, reason, source: 'workflow' } }];
    }
    if (pause.kind === 'question') {
      this.terminal = { kind: 'paused', pending: { kind: 'question', run_id: this.runId, step_id: stepId, text: message, workflow_id: this.workflowId } };
      return [{ id: e.id, type: 'question', data: { text: message ?? '' } }];
    }
    this.terminal = { kind: 'paused', pending: null };
    return [];
  }

  /** What the assistant message settles to, once the segment ended (undefined before). */
  settlement(): Settlement | undefined {
    const t = this.terminal;
    if (!t) return undefined;
    if (t.kind === 'paused') {
      const asked = t.pending?.kind === 'question' ? (t.pending.text ?? '') : t.pending?.source === 'workflow' ? (t.pending.reason ?? '') : '';
      const content = [this.text, asked].filter(Boolean).join('\n\n');
      return { content, status: 'complete', usage: this.usage, pause: t.pending, error: null };
    }
    const status = t.status === 'failed' ? 'failed' : t.status === 'cancelled' || this.interrupted ? 'interrupted' : 'complete';
    return { content: this.text, status, usage: this.usage, pause: null, error: t.error };
  }
}
