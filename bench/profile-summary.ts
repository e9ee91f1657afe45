/**
 * Where a V8 CPU profile's busy time went, by area and function, optionally only between two
 * instants (a bench phase's `window_us`):
 *
 *   node --import tsx bench/profile-summary.ts FILE.cpuprofile [--from US --to US] [--limit 40]
 */
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from './lib/kernel-process.ts';
import { printSummary, summarizeProfile } from './lib/cpu-profile.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { from: { type: 'string' }, to: { type: 'string' }, limit: { type: 'string', default: '40' } } });
if (positionals.length !== 1) throw new Error('usage: profile-summary.ts FILE.cpuprofile [--from US --to US] [--limit N]');
const window = values.from && values.to ? { fromUs: Number(values.from), toUs: Number(values.to) } : undefined;
printSummary(summarizeProfile(positionals[0], PROJECT_ROOT, Number(values.limit), window));
