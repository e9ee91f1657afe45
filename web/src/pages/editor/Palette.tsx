import { memo, useMemo, useState, type ReactNode } from 'react';
import type { NodeTypeInfo } from '../../graph/types';

export const DRAG_TYPE = 'application/x-wao-node-type';

/** The node types by category, searchable; a type is added by click, Enter, or dragged onto the canvas. */
export const Palette = memo(PaletteImpl);

function PaletteImpl({ types, onAdd }: { types: NodeTypeInfo[]; onAdd: (type: NodeTypeInfo) => void }): ReactNode {
  const [query, setQuery] = useState('');
  const groups = useMemo(() => {
    const q = query.trim().toLowerCase();
    const hits = types.filter((t) => !q || [t.type, t.title ?? '', t.description ?? '', t.category].some((s) => s.toLowerCase().includes(q)));
    const by = new Map<string, NodeTypeInfo[]>();
    for (const t of hits) by.set(t.category, [...(by.get(t.category) ?? []), t]);
    return [...by.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [types, query]);
  return (
    <aside className="palette" aria-label="Node types">
      <label>
        Search node types
        <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="http, respond…" />
      </label>
      {groups.length === 0 && <p className="muted">No node type matches “{query}”.</p>}
      {groups.map(([category, list]) => (
        <section key={category}>
          <h3>{category}</h3>
          <ul>
            {list.map((t) => (
              <li key={t.type}>
                <button
                  type="button"
                  draggable
                  title={t.description}
                  onClick={() => onAdd(t)}
                  onDragStart={(e) => {
                    e.dataTransfer.setData(DRAG_TYPE, t.type);
                    e.dataTransfer.effectAllowed = 'copy';
                  }}
                >
                  <span className="sr-only">Add </span>{t.title ?? t.type} <span className="muted">{t.type}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </aside>
  );
}
