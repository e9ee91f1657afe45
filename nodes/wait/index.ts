import { instantOf, zoneOf } from '../../kernel/nodes/condition-values.ts';
import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';

/**
 * Workflow node type `wait`: pauses the run. `wait_type: approval` waits for an explicit
 * `approve` / `reject` decision by the run owner (POST /runs/{run_id}/resume); `timer` waits
 * `seconds`, or `until` a date-time (a past one does not wait; short waits sleep in the worker,
 * long ones resume from a delayed job and survive restarts); `event` waits until the run is resumed, and the resume `input` is its output.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'wait',
  version: 1,
  category: 'logic',
  title: 'Wait',
  description: 'Pauses the run for an approval, a timer or an event.',
  config_schema: {
    type: 'object',
    properties: {
      wait_type: { type: 'string', enum: ['approval', 'timer', 'event'], description: "approval: until the run owner approves or rejects (POST /runs/{run_id}/resume); timer: seconds, or until a date-time; event: until the run is resumed, the resume's input being the output.", examples: ['timer'] },
      seconds: { type: 'number', minimum: 0, maximum: 31536000, description: 'timer without until: how long to wait (short waits sleep in the worker, long ones resume from a delayed job).', examples: [3600] },
      until: { type: 'string', minLength: 1, maxLength: 100, description: 'timer: instead of seconds, the date-time to wait until (ISO 8601, HTTP, RFC 2822 or SQL form; usually a template); a past one does not wait, one over a year ahead fails the step.', examples: ['2025-01-01T09:00:00Z'] },
      zone: { type: 'string', maxLength: 64, default: 'UTC', description: 'timer with until: the IANA zone of a date-time without an offset.', examples: ['Europe/Berlin'] },
      event: { type: ['string', 'null'], minLength: 1, maxLength: 200, default: null, description: 'event: the name of what the run waits for, shown with the paused run (null: none).', examples: ['contract_signed'] },
      message: { type: ['string', 'null'], maxLength: 2000, default: null, description: 'Shown with the paused run, e.g. to the approver (null: none).', examples: ['Approve the refund of {{trigger.amount}} EUR?'] },
    },
    required: ['wait_type'],
    if: { properties: { wait_type: { const: 'timer' } } },
    then: { if: { required: ['until'] }, then: {}, else: { required: ['seconds'] } },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
};

type Config = { wait_type: 'approval' | 'timer' | 'event'; seconds?: number; until?: unknown; zone?: string; event?: string | null; message?: string | null };

const MAX_SECONDS = 31536000;

/** Seconds from now until `until` (none for a past one). */
function secondsUntil(until: unknown, zone: unknown): number {
  const at = instantOf(until, zoneOf(zone, 'config.zone'), 'config.until');
  if (at === undefined) throw new NodeStepError('config.until is empty: a timer needs seconds or a date-time to wait until.', 'BAD_CONFIG');
  const seconds = Math.max(0, (at - Date.now()) / 1000);
  if (seconds > MAX_SECONDS) throw new NodeStepError(`config.until '${String(until)}' is more than a year ahead.`, 'BAD_CONFIG');
  return seconds;
}

export default defineNodeType(nodeType, (params: { config: Config }) => {
  const { config } = params;
  if (config.wait_type === 'timer') {
    const seconds = config.until !== undefined && config.seconds === undefined ? secondsUntil(config.until, config.zone) : Number(config.seconds);
    if (!Number.isFinite(seconds) || seconds < 0) throw new Error('wait: a timer needs seconds >= 0');
    return { pause: { kind: 'timer', seconds, message: config.message ?? null } };
  }
  if (config.wait_type === 'approval') return { pause: { kind: 'approval', decision_required: true, message: config.message ?? null } };
  return { pause: { kind: 'event', event: config.event ?? null, message: config.message ?? null } };
});
