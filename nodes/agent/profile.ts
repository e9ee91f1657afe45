/**
 * Where an agent round's time goes, for bench/agent-loop.ts: a sink the bench installs under a
 * global symbol (the kernel loads this package as its own module graph, so a module variable
 * would not be shared). Unset, each measurement costs one property read.
 */
export type LoopPhase = 'step' | 'model' | 'checkpoint' | 'tool';
export type LoopSink = (phase: LoopPhase, ms: number, runId: string) => void;

const PROFILE = Symbol.for('wao.agent.loop-profile');

export function loopSink(): LoopSink | undefined {
  return (globalThis as { [PROFILE]?: LoopSink })[PROFILE];
}

export function installLoopSink(sink: LoopSink | undefined): void {
  (globalThis as { [PROFILE]?: LoopSink })[PROFILE] = sink;
}
