import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import ConfigForm from '../src/forms/ConfigForm';
import { configProblems } from '../src/forms/config-validator';
import type { NodeTypeInfo } from '../src/graph/types';
import nodeTypes from './fixtures/editor-node-types.json';
import verdicts from './fixtures/editor-config-verdicts.json';

// captured from the real server by web/scripts/editor-fixtures.ts: every shipped node type and,
// per type, configs with the server's bad_config problems (pointer and wording) when saved
const TYPES = new Map((nodeTypes as unknown as NodeTypeInfo[]).map((t) => [t.type, t]));

describe('config forms agree with the server on every shipped node type', () => {
  it('covers every shipped node type', () => {
    expect(TYPES.size).toBeGreaterThanOrEqual(29);
    for (const type of TYPES.keys()) expect(verdicts.some((v) => v.type === type)).toBe(true);
  });

  for (const v of verdicts) {
    it(`${v.type} · ${v.label}: ${v.problems.length ? `refused at ${v.problems.map((p) => p.pointer).join(', ')}` : 'accepted'}`, () => {
      const schema = TYPES.get(v.type)!.config_schema;
      const said = (list: { pointer: string; message: string }[]) => [...new Set(list.map((p) => `${p.pointer} ${p.message}`))].sort();
      expect(said(configProblems(schema, v.config))).toEqual(said(v.problems));
    });
  }

  for (const type of TYPES.values()) {
    it(`renders a form for ${type.type} from its schema, with its defaults accepted or refused as the server does`, () => {
      const defaults = verdicts.find((v) => v.type === type.type && v.label === 'form defaults')!;
      const { container } = render(<ConfigForm idPrefix={`t-${type.type}`} schema={type.config_schema} config={defaults.config as Record<string, unknown>} onChange={() => undefined} />);
      expect(container.querySelector('form')).not.toBeNull();
      expect(configProblems(type.config_schema, defaults.config).length === 0).toBe(defaults.problems.length === 0);
    });
  }
});

describe('every control of a config form has an accessible name', () => {
  const expectAllNamed = (container: HTMLElement) => {
    for (const el of container.querySelectorAll<HTMLElement>('input:not([type=hidden]), select, textarea')) expect(el, el.id).toHaveAccessibleName();
  };

  it("names the select choosing a oneOf alternative (a condition's branch: one step id or a list)", () => {
    const { container } = render(<ConfigForm idPrefix="t-branches" schema={TYPES.get('condition')!.config_schema} config={{ expression: '{{trigger.ok}}', branches: { true: 'yes', false: 'no' } }} onChange={() => undefined} />);
    expect(container.querySelector('#t-branches_branches_true__oneof_select')).toHaveAccessibleName('Form of true');
    expectAllNamed(container);
  });

  for (const type of TYPES.values()) {
    it(`${type.type}, with its defaults`, () => {
      const defaults = verdicts.find((v) => v.type === type.type && v.label === 'form defaults')!;
      const { container } = render(<ConfigForm idPrefix={`n-${type.type}`} schema={type.config_schema} config={defaults.config as Record<string, unknown>} onChange={() => undefined} />);
      expectAllNamed(container);
    });
  }
});

describe('a new step starts from the form defaults', () => {
  it("fills an array's minItems entries only where the array is required: a condition tests its expression, with no empty item-mode condition to fill in first", () => {
    let reported: Record<string, unknown> | undefined;
    const schema = TYPES.get('condition')!.config_schema;
    render(<ConfigForm idPrefix="t-new-condition" schema={schema} config={{ expression: '{{trigger.ok}}' }} onChange={(c) => (reported = c)} />);
    const shown = reported ?? {};
    expect(shown.conditions).toBeUndefined();
    expect(configProblems(schema, { ...shown, expression: '{{trigger.ok}}' })).toEqual([]);
  });
});
