import { useEffect, useState, type ReactNode } from 'react';
import type { FieldProps } from '@rjsf/utils';

/**
 * A value the schema leaves free (`{}`, or an object with no declared properties such as
 * transform's `set`): edited as JSON text. Text that is not JSON yet stays in the box with a
 * note and changes nothing; a plain word or a whole template is taken as a string.
 */
export function JsonField(props: FieldProps): ReactNode {
  const { formData, onChange, fieldPathId, name, schema, required, disabled, readonly, rawErrors } = props;
  const [text, setText] = useState(() => show(formData));
  const [unreadable, setUnreadable] = useState(false);
  useEffect(() => {
    // an outside change (a reset, another field) shows; one this box made keeps its spacing
    // (`text` is read, not a dependency: typing must not reformat what is being typed)
    if (!sameValue(parse(text), formData)) setText(show(formData));
  }, [formData]);
  const id = fieldPathId.$id;
  const label = schema.title ?? name;
  return (
    <div className="json-field">
      <label htmlFor={id}>{label}{required ? ' *' : ''} <span className="muted">(JSON)</span></label>
      {schema.description && <p className="muted field-description">{schema.description}</p>}
      <textarea
        id={id}
        rows={Math.min(12, Math.max(3, text.split('\n').length))}
        value={text}
        disabled={disabled || readonly}
        aria-invalid={unreadable || Boolean(rawErrors?.length)}
        aria-describedby={unreadable ? `${id}__json` : undefined}
        onChange={(e) => {
          setText(e.target.value);
          const value = parse(e.target.value);
          setUnreadable(value === UNREADABLE);
          if (value !== UNREADABLE) onChange(value, fieldPathId.path);
        }}
      />
      {unreadable && <p id={`${id}__json`} className="field-error">Not JSON yet: the last readable value is kept.</p>}
    </div>
  );
}

const UNREADABLE = Symbol('unreadable');

function parse(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const t = text.trim();
    // a whole template (`{{step.output}}`) is a value of its own; other text that looks like JSON is unfinished
    if (/^\{\{[^{}]+\}\}$/.test(t)) return t;
    return /^[{["\d-]|^(true|false|null)$/.test(t) ? UNREADABLE : t;
  }
}

function show(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
