import test from 'ava';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const SECRETS = ['SECRETONE', 'SECRETTWO', 'SECRETBAD'];

test('no raw key reaches the logs, at log level trace, on any path that handles one', (t) => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/models-log-probe.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 100_000, env: { ...process.env, NODE_ENV: 'test' } });
  const output = `${run.stdout}\n${run.stderr}`;
  t.is(run.status, 0, output.slice(-4000));
  t.true(output.includes('PROBE-DONE'));
  t.true(output.includes('model provider key added'), 'the kernel logged (trace level is on)');
  t.true(output.includes('model provider key rotated'));
  for (const secret of SECRETS) t.false(output.includes(secret), `${secret} appears in the output`);
});
