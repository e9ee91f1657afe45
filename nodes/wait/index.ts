import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `wait`: pauses the run. `wait_type: approval` waits for an explicit
 * `approve` / `reject` decision by the run owner (POST /runs/{run_id}/resume); `timer` waits
 * `seconds` (short waits sleep in the worker, long ones resume from a delayed job and survive
 * restarts); `event` waits until the run is resumed, and the resume `input` is its output.
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
      wait_type: { type: 'string', enum: ['approval', 'timer', 'event'] },
      seconds: { type: 'number', minimum: 0, maximum: 31536000 },
      event: { type: 'string', minLength: 1, maxLength: 200 },
      message: { type: 'string', maxLength: 2000 },
    },
    required: ['wait_type'],
    if: { properties: { wait_type: { const: 'timer' } } },
    then: { required: ['seconds'] },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
};

type Config = { wait_type: 'approval' | 'timer' | 'event'; seconds?: number; event?: string; message?: string };

export default defineNodeType(nodeType, (params: { config: Config }) => {
  const { config } = params;
  if (config.wait_type === 'timer') {
    const seconds = Number(config.seconds);
    if (!Number.isFinite(seconds) || seconds < 0) throw new Error('wait: a timer needs seconds >= 0');
    return { pause: { kind: 'timer', seconds, message: config.message ?? null } };
  }
  if (config.wait_type === 'approval') return { pause: { kind: 'approval', decision_required: true, message: config.message ?? null } };
  return { pause: { kind: 'event', event: config.event ?? null, message: config.message ?? null } };
});
