import { isDeepStrictEqual } from 'node:util';
import type { DefinitionBody } from '../definitions/validate.ts';

interface DefinitionChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Step ids the proposal adds, removes or changes (type, name, config or next) relative to the base. */
export function changesFrom(base: DefinitionBody | undefined, proposal: Pick<DefinitionBody, 'steps'>): DefinitionChanges {
  const before = new Map((base?.steps ?? []).map((s) => [s.id, s]));
  const after = new Map(proposal.steps.map((s) => [s.id, s]));
  const added = [...after.keys()].filter((id) => !before.has(id));
  const removed = [...before.keys()].filter((id) => !after.has(id));
  const changed = [...after.keys()].filter((id) => {
    const a = before.get(id);
    const b = after.get(id)!;
    return a !== undefined && !isDeepStrictEqual({ type: a.type, name: a.name ?? null, config: a.config ?? {}, next: a.next ?? [] }, { type: b.type, name: b.name ?? null, config: b.config ?? {}, next: b.next ?? [] });
  });
  return { added, removed, changed };
}
