/**
 * Reading what the agent of a workspace runtime job answered: its report ends with one line of
 * JSON (the structured result), which these functions find and check.
 */

/** The last line of `report` that is a JSON object holding `key`, else null. */
export function resultLine(report: string | null, key: string): Record<string, unknown> | null {
  const lines = (report ?? '').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('```'));
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i].startsWith('{')) continue;
    try {
      const value = JSON.parse(lines[i]) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value) && key in value) return value as Record<string, unknown>;
    } catch {
      /* not this line */
    }
  }
  return null;
}

/** The report without its JSON result line (what a person reads). */
export function prose(report: string | null, key: string): string {
  const lines = (report ?? '').split('\n');
  const at = lines.map((l) => l.trim()).findLastIndex((l) => l.startsWith('{') && l.includes(`"${key}"`));
  return (at >= 0 ? lines.filter((_, i) => i !== at) : lines).join('\n').replace(/```(json)?\s*```/g, '').trim();
}

const text = (v: unknown, max: number): string | null => (typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : null);

export const VERDICTS = ['met', 'partly', 'not_met'] as const;
export interface Verdict {
  task_id: string;
  verdict: (typeof VERDICTS)[number];
  reason: string;
}

/** The verdicts for tasks among `taskIds` (others are dropped: the agent may judge only what it was given). */
export function verdicts(line: Record<string, unknown> | null, taskIds: Set<string>): Verdict[] | null {
  if (!line || !Array.isArray(line.verdicts)) return null;
  const out: Verdict[] = [];
  for (const v of line.verdicts as Record<string, unknown>[]) {
    const id = typeof v?.task_id === 'string' ? v.task_id.toLowerCase() : '';
    const verdict = VERDICTS.find((x) => x === v?.verdict);
    const reason = text(v?.reason, 2000);
    if (taskIds.has(id) && verdict && reason && !out.some((o) => o.task_id === id)) out.push({ task_id: id, verdict, reason });
  }
  return out;
}

export const INSIGHT_KINDS = ['fact', 'preference', 'decision', 'learning'] as const;
export interface Insight {
  kind: (typeof INSIGHT_KINDS)[number];
  text: string;
}

export function insights(line: Record<string, unknown> | null): Insight[] | null {
  if (!line || !Array.isArray(line.insights)) return null;
  return (line.insights as Record<string, unknown>[])
    .map((i) => ({ kind: INSIGHT_KINDS.find((k) => k === i?.kind), text: text(i?.text, 480) }))
    .filter((i): i is Insight => Boolean(i.kind && i.text))
    .slice(0, 50);
}

export interface Recommendation {
  title: string;
  detail: string | null;
}

export function recommendations(line: Record<string, unknown> | null): Recommendation[] | null {
  if (!line || !Array.isArray(line.recommendations)) return null;
  return (line.recommendations as Record<string, unknown>[])
    .map((r) => ({ title: text(r?.title, 300), detail: text(r?.detail, 2000) }))
    .filter((r): r is Recommendation => Boolean(r.title))
    .slice(0, 20);
}
