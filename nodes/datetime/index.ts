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
    properties: { ...DATETIME_PROPERTIES, timeout: STEP_TIMEOUT_SCHEMA },
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

export default defineDataNodeType<DatetimeArgs>(nodeType, ({ config }) => {
  try {
    return { output: runDatetime(config, { gaps: 'refuse' }) };
  } catch (err) {
    if (err instanceof DatetimeInputError) throw new NodeStepError(err.message, err.code === 'BAD_DATETIME' ? 'DATETIME_BAD_VALUE' : `DATETIME_${err.code}`);
    throw err;
  }
});
