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
