import { createRequire } from 'node:module';
import type { Config } from '../config/load.ts';

/** bindings moleculer gives every line that a reader at a terminal does not need on each */
const QUIET_BINDINGS = 'pid,hostname,node,nodeID,ns,mod,svc';

/** Whether log lines are written for a person: LOG_FORMAT=pretty, or auto with stdout a terminal. */
export function readableLogs(format: Config['env']['LOG_FORMAT'], stdoutIsTty: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty);
}

/**
 * moleculer's Pino logger options: JSON lines (one object a line, for collectors), or the same
 * lines made readable by pino-pretty, written synchronously so a line printed just before an
 * exit (a start-up failure) is not lost. A message's own line breaks stay: the first-start
 * owner password notice prints as its framed block.
 */
export function pinoLoggerOptions(env: Config['env'], nodeID: string, stdoutIsTty = process.stdout.isTTY === true): object {
  const options = { base: { node: nodeID }, timestamp: () => `,"time":"${new Date().toISOString()}"` };
  if (!readableLogs(env.LOG_FORMAT, stdoutIsTty)) return { options };
  // loaded only for readable logs: a node writing JSON never pays for it
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  const destination = pretty({
    sync: true,
    colorize: stdoutIsTty,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: QUIET_BINDINGS,
    messageFormat: '{if mod}[{mod}] {end}{msg}',
  });
  return { options, destination };
}
