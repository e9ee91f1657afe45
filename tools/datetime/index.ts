import type { DateTime } from 'luxon';
import { DATETIME_PROPERTIES, DATETIME_REQUIREMENTS, DatetimeInputError, runDatetime as runOps, type DatetimeArgs } from '../../kernel/datetime/ops.ts';
import { defineTool } from '../../kernel/tools/define.ts';
import { toolError } from '../../kernel/tools/errors.ts';
import type { ToolDeclaration } from '../../kernel/tools-contract.ts';

const declaration: ToolDeclaration = {
  name: 'datetime',
  description:
    "Dates and times in IANA time zones, DST-correct. op now: the current time (in `zone`). parse: read `datetime` (ISO 8601, RFC 2822, HTTP or SQL; or the Luxon tokens of `format`), local times taken in `zone`. format: write `datetime` with Luxon tokens `format` (e.g. 'yyyy-MM-dd HH:mm', 'cccc d LLLL') in `zone` and `locale`. add: add `amount` (negative to subtract; days are calendar days in `zone`). diff: `to` minus `datetime` in `unit`. convert: `datetime` shown in `to_zone`. Times without an offset are in `zone` (default UTC).",
  category: 'time',
  risk: 'low',
  side_effect: 'none',
  parameters: {
    type: 'object',
    properties: DATETIME_PROPERTIES,
    required: ['op'],
    additionalProperties: false,
    allOf: DATETIME_REQUIREMENTS,
  },
};

/** The shared operations (kernel/datetime/ops.ts); a wall time in a DST gap moves forward. */
export function runDatetime(args: DatetimeArgs, now?: () => DateTime): unknown {
  try {
    return runOps(args, { now, gaps: 'shift' });
  } catch (err) {
    if (err instanceof DatetimeInputError) throw toolError(err.message);
    throw err;
  }
}

export default defineTool<DatetimeArgs>(declaration, (args) => runDatetime(args));
