import type { CheckpointEntry, DurableAnswer } from '../../kernel/nodes/durable.ts';
import type { AgentPort } from './loop.ts';

type CheckpointOptions = { uncertain?: boolean; events?: CheckpointEntry['events'] };

/**
 * The loop's checkpoints, with one saving: a model turn whose tool calls may run again at no
 * cost (tools without side effects, or idempotent ones) is held back and committed in the same
 * commit as the next checkpoint, its first tool's result, instead of a commit of its own. A
 * crash in between loses only that turn: the model is asked again and the tool runs again,
 * which for such tools changes nothing. Anything that must find the turn committed (a park for
 * a person, a plan tool, a tool with side effects) commits it first, or with its own marker.
 */
export class TurnCommits {
  private held?: CheckpointEntry;

  constructor(private readonly port: Pick<AgentPort, 'checkpoint'>) {}

  hold(entry: CheckpointEntry): void {
    this.held = entry;
  }

  /** Commits a checkpoint, with the held turn ahead of it. */
  checkpoint(key: string, status: CheckpointEntry['status'], output: unknown, opts: CheckpointOptions = {}): Promise<DurableAnswer> {
    const ahead = this.held ? [this.held] : undefined;
    this.held = undefined;
    return this.port.checkpoint(key, status, output, { ...opts, ...(ahead ? { ahead } : {}) });
  }

  /** Commits the held turn on its own, if one is held; its answer (undefined: nothing was held). */
  async flush(): Promise<DurableAnswer | undefined> {
    const held = this.held;
    if (!held) return undefined;
    this.held = undefined;
    return this.port.checkpoint(held.key, held.status, held.output, { events: held.events });
  }
}
