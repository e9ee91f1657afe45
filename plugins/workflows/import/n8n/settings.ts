import { list, record } from '../graph.ts';
import type { N8nNode, NodeMapping } from './context.ts';

/**
 * A node's own n8n settings, beside its parameters: `executeOnce` (a per-item node runs for
 * the first item only: its `each` narrows to that item), and what has no equivalent here and is
 * reported: `alwaysOutputData`, retries, `continueOnFail` / `onError` (an error output's edges
 * are left out: a failure fails the run).
 */
const BRANCHING = new Set(['if', 'switch', 'filter', 'splitInBatches']);

export function applySettings(node: N8nNode & Record<string, unknown>, short: string, m: NodeMapping): { dropOutput?: number } {
  if (node.executeOnce === true && m.config.each !== undefined) {
    const each = m.config.each;
    const first = typeof each === 'string' ? each.replace(/\}\}$/, '[0]}}') : list(each).slice(0, 1);
    m.config.each = typeof first === 'string' ? [first] : first;
  }
  if (node.alwaysOutputData === true) m.approx.push('alwaysOutputData: a node with no items gives none here');
  if (node.retryOnFail === true) m.approx.push(`retry on fail: a failed step fails the run (retry it with POST /runs/{id}/retry)`);
  const onError = node.onError ?? (node.continueOnFail === true ? 'continueRegularOutput' : undefined);
  if (onError === 'continueRegularOutput') m.approx.push('continue on fail: a failed step fails the run here');
  if (onError === 'continueErrorOutput') {
    if (BRANCHING.has(short)) m.approx.push("the error output is not carried over: a failure fails the run");
    else {
      m.approx.push('the error output and its nodes are not reached: a failure fails the run');
      return { dropOutput: 1 };
    }
  }
  return {};
}

/** What a Schedule Trigger's rule says, for the binding that replaces it. */
export function scheduleSummary(parameters: unknown): string | undefined {
  const rules = list(record(record(parameters).rule).interval).map(record);
  const parts = rules.map((r) => {
    const field = String(r.field ?? 'days');
    if (field === 'cronExpression') return `cron '${String(r.expression ?? '')}'`;
    const every = r[`${field}Interval`] ?? 1;
    const at = [r.triggerAtHour !== undefined ? `hour ${String(r.triggerAtHour)}` : '', r.triggerAtMinute !== undefined ? `minute ${String(r.triggerAtMinute)}` : ''].filter(Boolean).join(', ');
    return `every ${String(every)} ${field}${at ? ` at ${at}` : ''}`;
  });
  return parts.length ? parts.join('; ') : undefined;
}
