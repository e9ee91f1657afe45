import test from 'ava';
import { loadConfig } from '../config/load.ts';
import { pinoLoggerOptions, readableLogs } from '../kernel/log-format.ts';
import { eventually } from './helpers/eventually.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { spawnKernel } from './helpers/process.ts';

test('LOG_FORMAT: auto is readable on a terminal and JSON on a pipe; json and pretty are what they say', (t) => {
  t.true(readableLogs('auto', true));
  t.false(readableLogs('auto', false));
  t.true(readableLogs('pretty', false));
  t.false(readableLogs('json', true));
  const env = loadConfig({ LOG_FORMAT: 'json' }, '/nonexistent/.env').env;
  t.false('destination' in pinoLoggerOptions(env, 'n1', true), 'JSON goes to stdout as pino writes it');
  t.true('destination' in pinoLoggerOptions({ ...env, LOG_FORMAT: 'pretty' }, 'n1', false));
});

test('a bad LOG_FORMAT is refused at start-up, naming the variable', (t) => {
  const err = t.throws(() => loadConfig({ LOG_FORMAT: 'yaml' }, '/nonexistent/.env'));
  t.regex(err!.message, /LOG_FORMAT/);
});

test('npm start with LOG_FORMAT=pretty prints readable lines, and the first-start password as its own framed block', async (t) => {
  const db = await createTestDatabase('log_format');
  const node = await spawnKernel({ DATABASE_URL: db.url, CAPABILITY_DISABLED: '', LOG_LEVEL: 'info', LOG_FORMAT: 'pretty', ADMIN_EMAIL: '', ADMIN_PASSWORD: '' });
  try {
    await node.waitReady();
    await eventually(async () => node.output().includes('FIRST START'), { timeoutMs: 10_000, intervalMs: 50 });
    const lines = node.output().split('\n');
    t.false(lines.some((line) => line.startsWith('{"level"')), 'no JSON lines');
    t.true(lines.some((line) => /\bINFO\b.*\[broker\]/.test(line)), 'level and module in words');
    const passwordLine = lines.findIndex((line) => /^\s+password: [A-Za-z0-9_-]{24}$/.test(line));
    t.true(passwordLine > 0, node.output());
    t.regex(lines[passwordLine - 1], /^\s+email:\s+admin@localhost$/);
    t.true(lines.slice(passwordLine - 4, passwordLine).some((line) => /={72}/.test(line)), 'framed by a rule');
  } finally {
    node.kill();
    await node.exited;
    node.cleanup();
    await db.drop();
  }
});
