import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** Reads a V8 .cpuprofile (node --cpu-prof) and says where the busy time went. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface TimeShare {
  key: string;
  ms: number;
  /** percent of busy (non-idle) time */
  percent: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  byArea: TimeShare[];
  topSelf: TimeShare[];
  topTotal: TimeShare[];
}

const IDLE = '(idle)';

/** Which package or part of the runtime a frame belongs to. */
export function areaOf(url: string, functionName: string, root: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[1] ?? url.slice(5)}`;
  const path = url.replace(/^file:\/\//, '');
  const inModules = path.lastIndexOf('/node_modules/');
  if (inModules >= 0) {
    const parts = path.slice(inModules + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  return relative(root, path);
}

function frameKey(node: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  const path = url.replace(/^file:\/\//, '');
  const inModules = path.lastIndexOf('/node_modules/');
  const where = url.startsWith('node:') ? url : inModules >= 0 ? path.slice(inModules + 14) : relative(root, path);
  return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
}

function share(map: Map<string, number>, busyMs: number, limit: number): TimeShare[] {
  return [...map]
    .filter(([key]) => key !== IDLE)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([key, ms]) => ({ key, ms: Math.round(ms), percent: Math.round((ms / busyMs) * 1000) / 10 }));
}

/** Only the samples taken between two instants (microseconds of the monotonic clock V8 stamps a profile with). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

export function summarizeProfile(file: string, root: string, limit = 25, window?: ProfileWindow): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const area = new Map<string, number>();
  let idleUs = 0;
  let allUs = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    allUs += us;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === IDLE) {
      idleUs += us;
      return;
    }
    const key = frameKey(node, root);
    self.set(key, (self.get(key) ?? 0) + us / 1000);
    const a = areaOf(node.callFrame.url, node.callFrame.functionName, root);
    area.set(a, (area.get(a) ?? 0) + us / 1000);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = frameKey(byId.get(cur)!, root);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us / 1000);
    }
  });
  const busyMs = (allUs - idleUs) / 1000;
  return { busyMs: Math.round(busyMs), idleMs: Math.round(idleUs / 1000), byArea: share(area, busyMs, limit), topSelf: share(self, busyMs, limit), topTotal: share(total, busyMs, limit) };
}

export function printSummary(summary: ProfileSummary, requests?: number): void {
  const perReq = (ms: number) => (requests ? `  ${((ms * 1000) / requests).toFixed(2)} us/req` : '');
  console.log(`\nV8 CPU profile: busy ${summary.busyMs} ms, idle ${summary.idleMs} ms${requests ? `, ${requests} requests served` : ''}`);
  console.log('  note: V8 samples on a wall-clock timer; on a loaded machine time spent preempted around the socket write lands on');
  console.log('  writeUtf8String (seen here at ~50% while perf measures ~27% for all kernel-space time). Read the JS rows; use --profile perf for CPU shares.');
  for (const [title, rows] of [['by package / area (self time)', summary.byArea], ['top functions by self time', summary.topSelf], ['top functions by total (inclusive) time', summary.topTotal]] as const) {
    console.log(`\n  ${title}:`);
    for (const r of rows) console.log(`    ${r.percent.toFixed(1).padStart(5)}%  ${String(r.ms).padStart(6)} ms${perReq(r.ms)}  ${r.key}`);
  }
}
