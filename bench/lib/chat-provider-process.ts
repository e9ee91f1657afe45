import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { toPerformanceNow } from './monotonic.ts';

/** The bench's provider in a process of its own (its event loop is not the load generator's, whose lag would count as added latency). */
export interface ProviderProcess {
  url: string;
  /** per `<marker>#<token index>`: when the provider wrote that token, on this process's performance.now() */
  sentAt(): Promise<Map<string, number>>;
  stop(): void;
}

export async function startProviderProcess(defaultChunks: number, intervalMs: number): Promise<ProviderProcess> {
  const child: ChildProcess = fork(join(import.meta.dirname, 'chat-provider.ts'), [String(defaultChunks), String(intervalMs)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`the provider process exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    sentAt: () =>
      new Promise((resolve) => {
        child.once('message', (m: { sent: [string, number][] }) => resolve(new Map(m.sent.map(([k, at]) => [k, toPerformanceNow(at)]))));
        child.send({ type: 'sent' });
      }),
    stop: () => void child.kill(),
  };
}
