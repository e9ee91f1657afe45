import { DATETIME_OPS, DATETIME_PROPERTIES, DATETIME_REQUIREMENTS, DatetimeInputError, runDatetime, type DatetimeArgs } from '../../kernel/datetime/ops.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { NodeStepError } from '../../kernel/nodes/model-step.ts';
import { DATE_PARTS, DIFF_UNITS, ROUND_UNITS, runCalendar, type CalendarArgs } from './calendar.ts';

/**
 * Workflow node type `datetime`: the operations of the `datetime` agent tool (one shared
 * implementation, kernel/datetime/ops.ts) as a step, with luxon, and the node's own calendar
 * operations (calendar.ts: round, extract, diff in several units). Unlike the tool, a wall time
 * that does not exist in its zone (the hour a spring DST change skips) is refused, not moved:
 * a workflow acting on it at the wrong hour is worse than a failed step. A wall time shown twice
 * (the fall-back night) is read as the second one, in standard time (luxon's choice).
 */
const OPS = [...DATETIME_OPS, 'round', 'extract'] as const;
const OUTPUT_KEYS = ['text', 'iso', 'value', 'values', 'iso_duration', 'epoch_ms', 'date', 'time'] as const;
const requires = (op: string, ...names: string[]) => ({ if: { properties: { op: { const: op } } }, then: { required: names } });

export const nodeType: NodeTypeDeclaration = {
  type: 'datetime',
  version: 1,
  category: 'data',
  title: 'Date & Time',
  description: 'Parses, formats, adds to, diffs, converts, rounds and takes apart date-times in IANA time zones, DST-correct.',
  config_schema: {
    type: 'object',
    properties: {
      ...DATETIME_PROPERTIES,
      op: { type: 'string', enum: [...OPS], description: 'now, parse, format, add, diff, convert, round (to the start of a calendar unit) or extract (one part of the date).', examples: ['round'] },
      from_format: { type: ['string', 'null'], minLength: 1, maxLength: 200, default: null, description: 'Every op but parse: read datetime (and to) with these Luxon tokens instead of ISO 8601, RFC 2822, HTTP or SQL (null: those).', examples: ['dd.MM.yyyy HH:mm'] },
      round_to: { type: 'string', enum: [...ROUND_UNITS], description: 'round: the calendar unit, in zone (a week starts on Monday).', examples: ['day'] },
      direction: { type: 'string', enum: ['down', 'up'], default: 'down', description: 'round: down is the start of the unit the date is in; up the start of the next one (a date already on a boundary moves on too).', examples: ['up'] },
      part: { type: 'string', enum: [...DATE_PARTS], description: 'extract: the part, a number in zone (week: the ISO week number; weekday: 1 Monday to 7 Sunday; day_of_year from 1).', examples: ['week'] },
      units: { type: ['array', 'null'], items: { type: 'string', enum: [...DIFF_UNITS] }, minItems: 1, maxItems: DIFF_UNITS.length, default: null, description: 'diff: answer `values` in these units together, e.g. days and hours ({days: 1, hours: 2.5}); the last one takes the fraction. null: `value` in unit.', examples: [['days', 'hours']] },
      output_field: { type: ['string', 'null'], minLength: 1, maxLength: 200, default: null, description: "Put the result into a copy of `item` under this key instead of answering the whole result (null: the whole result): the text for format, the ISO date-time for now, parse, add, convert and round, the number for diff and extract (values for diff with units).", examples: ['formattedDate'] },
      output_key: { type: ['string', 'null'], enum: [...OUTPUT_KEYS, null], default: null, description: "With output_field: which key of the result goes there instead (e.g. iso_duration for diff); null: the op's own (text, iso, value or values).", examples: ['iso_duration'] },
      item: { type: 'object', default: {}, description: 'With output_field: the object the result is added to, usually "{{item}}" in a step with each.', examples: ['{{item}}'] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    required: ['op'],
    additionalProperties: false,
    allOf: [...DATETIME_REQUIREMENTS, requires('round', 'datetime', 'round_to'), requires('extract', 'datetime', 'part')],
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
  failures: {
    ...COMMON_STEP_FAILURES,
    DATETIME_UNKNOWN_ZONE: 'zone or to_zone is not an IANA time zone',
    DATETIME_NONEXISTENT_TIME: 'a wall time inside a DST gap of its zone (e.g. 02:30 on the spring-forward night in Europe/Berlin)',
    DATETIME_BAD_VALUE: 'datetime or to cannot be read (or does not match format or from_format), a result out of range, or output_key naming a key the result lacks',
  },
};

type Op = (typeof OPS)[number];
type Config = Omit<DatetimeArgs, 'op'> &
  Omit<CalendarArgs, 'op' | 'datetime'> & { op: Op; datetime?: string; output_field?: string | null; output_key?: (typeof OUTPUT_KEYS)[number] | null; item?: Record<string, unknown> };

/** The key of a result output_field receives by default. */
function defaultKey(config: Config): string {
  if (config.op === 'format') return 'text';
  if (config.op === 'diff') return config.units ? 'values' : 'value';
  if (config.op === 'extract') return 'value';
  return 'iso';
}

function run(config: Config): Record<string, unknown> {
  const { output_field: _field, output_key: _key, item: _item, ...args } = config;
  if (args.op === 'round' || args.op === 'extract' || (args.op === 'diff' && args.units)) return runCalendar(args as CalendarArgs);
  return runDatetime(args as DatetimeArgs, { gaps: 'refuse' }) as Record<string, unknown>;
}

export default defineDataNodeType<Config>(nodeType, ({ config }) => {
  try {
    const result = run(config);
    const field = config.output_field;
    if (field === undefined || field === null) return { output: result };
    const key = config.output_key ?? defaultKey(config);
    if (!Object.hasOwn(result, key)) throw new NodeStepError(`output_key '${key}' is not in the result of op ${config.op} (it has ${Object.keys(result).join(', ')}).`, 'DATETIME_BAD_VALUE');
    return { output: { ...(config.item ?? {}), [field]: result[key] } };
  } catch (err) {
    if (err instanceof DatetimeInputError) throw new NodeStepError(err.message, err.code === 'BAD_DATETIME' ? 'DATETIME_BAD_VALUE' : `DATETIME_${err.code}`);
    throw err;
  }
});
