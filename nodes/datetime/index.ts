import { DATETIME_PROPERTIES, DATETIME_REQUIREMENTS, DatetimeInputError, runDatetime, type DatetimeArgs } from '../../kernel/datetime/ops.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../kernel/nodes/model-step.ts';

/**
 * Workflow node type `datetime`: the operations of the `datetime` agent tool (one shared
 * implementation, kernel/datetime/ops.ts) as a step, with luxon. Unlike the tool, a wall time
 * that does not exist in its zone (the hour a spring DST change skips) is refused, not moved:
 * a workflow acting on it at the wrong hour is worse than a failed step. A wall time shown twice
 * (the fall-back night) is read as the second one, in standard time (luxon's choice).
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'datetime',
  version: 1,
  category: 'data',
  title: 'Date & Time',
  description: 'Parses, formats, adds to, diffs and converts date-times in IANA time zones, DST-correct.',
  config_schema: {
    type: 'object',
    properties: {
      ...DATETIME_PROPERTIES,
      output_field: { type: ['string', 'null'], minLength: 1, maxLength: 200, default: null, description: "Put the result into a copy of `item` under this key instead of answering the whole result (null: the whole result): the text for format, the ISO date-time for now, parse, add and convert, the number for diff.", examples: ['formattedDate'] },
      item: { type: 'object', default: {}, description: 'With output_field: the object the result is added to, usually "{{item}}" in a step with each.', examples: ['{{item}}'] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    required: ['op'],
    additionalProperties: false,
    allOf: DATETIME_REQUIREMENTS,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
  failures: {
    ...COMMON_STEP_FAILURES,
    DATETIME_UNKNOWN_ZONE: 'zone or to_zone is not an IANA time zone',
    DATETIME_NONEXISTENT_TIME: 'a wall time inside a DST gap of its zone (e.g. 02:30 on the spring-forward night in Europe/Berlin)',
    DATETIME_BAD_VALUE: 'datetime or to cannot be read (or does not match format), or a result out of range',
  },
};

type Config = DatetimeArgs & { output_field?: string | null; item?: Record<string, unknown> };

/** The one value output_field receives from a result. */
function valueOf(op: DatetimeArgs['op'], result: Record<string, unknown>): unknown {
  if (op === 'format') return result.text;
  if (op === 'diff') return result.value;
  return result.iso;
}

export default defineDataNodeType<Config>(nodeType, ({ config }) => {
  try {
    const { output_field: field, item, ...args } = config;
    const result = runDatetime(args, { gaps: 'refuse' }) as Record<string, unknown>;
    if (field === undefined || field === null) return { output: result };
    return { output: { ...(item ?? {}), [field]: valueOf(args.op, result) } };
  } catch (err) {
    if (err instanceof DatetimeInputError) throw new NodeStepError(err.message, err.code === 'BAD_DATETIME' ? 'DATETIME_BAD_VALUE' : `DATETIME_${err.code}`);
    throw err;
  }
});
