import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { unsupportedKeywords } from '../../kernel/json-schema/validate.ts';
import type { GenerateParams } from '../../kernel/models-generate-contract.ts';

const MODEL = { type: 'string', trim: true, min: 1, max: 200, pattern: '^[\\x21-\\x7E]+$', optional: true } as const;
const COMMON = {
  system: { type: 'string', max: 1_000_000, optional: true },
  api_key_id: { type: 'string', min: 1, max: 64, optional: true },
  model: MODEL,
  max_tokens: { type: 'number', integer: true, min: 1, max: 1_000_000, optional: true },
  temperature: { type: 'number', min: 0, max: 2, optional: true },
} as const;

/** fastest-validator params of models.chat and models.chatStream (ChatParams). */
export const CHAT_PARAMS = {
  $$strict: true,
  messages: {
    type: 'array',
    min: 1,
    max: 1000,
    items: {
      type: 'object',
      strict: true,
      props: { role: { type: 'enum', values: ['user', 'assistant'] }, content: { type: 'string', max: 1_000_000 } },
    },
  },
  ...COMMON,
} as const;

const ID = { type: 'string', min: 1, max: 64, optional: true } as const;
const TOOL_CALL = {
  type: 'object',
  strict: true,
  props: { id: { type: 'string', min: 1, max: 200 }, name: { type: 'string', min: 1, max: 64 }, arguments: { type: 'any', optional: true }, arguments_error: { type: 'string', max: 4000, optional: true } },
} as const;

/**
 * fastest-validator params of models.generate and models.generateStream (GenerateParams). The
 * shape of each message depends on its role: `checkGenerate` checks that, naming the field.
 */
export const GENERATE_PARAMS = {
  $$strict: true,
  messages: {
    type: 'array',
    min: 1,
    max: 1000,
    items: {
      type: 'object',
      strict: true,
      props: {
        role: { type: 'enum', values: ['user', 'assistant', 'tool'] },
        content: { type: 'any', optional: true },
        tool_calls: { type: 'array', max: 128, items: TOOL_CALL, optional: true },
        tool_call_id: { type: 'string', min: 1, max: 200, optional: true },
        tool_name: { type: 'string', min: 1, max: 64, optional: true },
        is_error: { type: 'boolean', optional: true },
      },
    },
  },
  tools: {
    type: 'array',
    max: 128,
    optional: true,
    items: {
      type: 'object',
      strict: true,
      props: { name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, description: { type: 'string', max: 10_000 }, parameters: { type: 'object' } },
    },
  },
  tool_choice: {
    type: 'multi',
    optional: true,
    rules: [
      { type: 'enum', values: ['auto', 'none', 'required'] },
      { type: 'object', strict: true, props: { tool: { type: 'string', min: 1, max: 64 } } },
    ],
  },
  output: {
    type: 'object',
    strict: true,
    optional: true,
    props: { schema: { type: 'object' }, name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', optional: true }, description: { type: 'string', max: 2000, optional: true } },
  },
  ...COMMON,
  purpose: { type: 'string', pattern: '^[a-z0-9_.:-]{1,64}$', optional: true },
  workspace_id: ID,
  agent_id: ID,
  run_id: ID,
} as const;

type FieldProblem = { field: string; message: string; type: string };

/** What the validator cannot say: each message's shape for its role, tool names, schemas. Throws 422 naming every bad field. */
export function checkGenerate(p: GenerateParams): void {
  const problems: FieldProblem[] = [];
  const bad = (field: string, message: string, type = 'invalid') => problems.push({ field, message: `The '${field}' field ${message}.`, type });
  p.messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    const extra = (fields: string[]) => fields.forEach((f) => (m as unknown as Record<string, unknown>)[f] !== undefined && bad(`${at}.${f}`, `is not accepted on a ${m.role} message`, 'unknownField'));
    if (m.role === 'user') {
      extra(['tool_calls', 'tool_call_id', 'tool_name', 'is_error']);
      checkUserContent(m.content, at, bad);
    } else if (m.role === 'assistant') {
      extra(['tool_call_id', 'tool_name', 'is_error']);
      if (typeof m.content !== 'string' || m.content.length > 1_000_000) bad(`${at}.content`, 'must be a string of at most 1,000,000 characters', 'string');
    } else {
      extra(['tool_calls']);
      if (typeof m.tool_call_id !== 'string') bad(`${at}.tool_call_id`, 'is required on a tool message', 'required');
      if (typeof m.tool_name !== 'string') bad(`${at}.tool_name`, 'is required on a tool message', 'required');
      if (m.content === undefined) bad(`${at}.content`, 'is required (the tool result)', 'required');
      else if (JSON.stringify(m.content).length > 1_000_000) bad(`${at}.content`, 'must be at most 1,000,000 characters as JSON', 'tooLong');
    }
  });
  const names = new Set<string>();
  p.tools?.forEach((t, i) => {
    if (names.has(t.name)) bad(`tools[${i}].name`, `repeats the tool name '${t.name}'`, 'duplicate');
    names.add(t.name);
    if (t.parameters.type !== 'object') bad(`tools[${i}].parameters`, "must be an object schema ({type: 'object', ...})", 'schema');
  });
  if (typeof p.tool_choice === 'object' && !names.has(p.tool_choice.tool)) bad('tool_choice.tool', 'must name one of the tools given', 'unknownTool');
  if (p.tool_choice !== undefined && !p.tools?.length) bad('tool_choice', 'needs tools', 'noTools');
  if (p.output) {
    const unsupported = unsupportedKeywords(p.output.schema);
    if (unsupported.length) bad('output.schema', `uses keywords the answer cannot be checked against (${unsupported.slice(0, 5).join(', ')})`, 'schema');
  }
  if (problems.length) throw ERRORS.VALIDATION_FAILED('Validation failed.', problems);
}

function checkUserContent(content: unknown, at: string, bad: (field: string, message: string, type?: string) => void): void {
  if (typeof content === 'string') {
    if (content.length > 1_000_000) bad(`${at}.content`, 'must be at most 1,000,000 characters', 'stringMax');
    return;
  }
  if (!Array.isArray(content) || content.length === 0 || content.length > 100) return bad(`${at}.content`, 'must be a string or an array of 1 to 100 text and file parts', 'content');
  content.forEach((part: unknown, j) => {
    const field = `${at}.content[${j}]`;
    const p = (part ?? {}) as Record<string, unknown>;
    const allowed = p.type === 'text' ? ['type', 'text'] : p.type === 'file' ? ['type', 'object_key', 'media_type', 'filename'] : undefined;
    if (!allowed || typeof part !== 'object' || Array.isArray(part)) return bad(`${field}.type`, "must be 'text' or 'file'", 'enumValue');
    for (const key of Object.keys(p)) if (!allowed.includes(key)) bad(`${field}.${key}`, 'is not accepted here', 'unknownField');
    if (p.type === 'text' && (typeof p.text !== 'string' || p.text.length > 1_000_000)) bad(`${field}.text`, 'must be a string of at most 1,000,000 characters', 'string');
    if (p.type === 'file') {
      if (typeof p.object_key !== 'string' || !p.object_key || p.object_key.length > 1024) bad(`${field}.object_key`, 'must be an object store key of 1 to 1024 characters', 'string');
      if (typeof p.media_type !== 'string' || !/^[\w.+-]+\/[\w.+-]+$/.test(p.media_type)) bad(`${field}.media_type`, "must be a media type such as 'image/png'", 'mediaType');
      if (p.filename !== undefined && (typeof p.filename !== 'string' || p.filename.length > 255)) bad(`${field}.filename`, 'must be a string of at most 255 characters', 'string');
    }
  });
}
