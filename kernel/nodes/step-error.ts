/**
 * A step failure: the engine records `message` and `type` (its code) on the failed receipt.
 * `data` is kept for the caller (problems, text), never shown with internal detail.
 */
export class NodeStepError extends Error {
  constructor(message: string, readonly type: string, readonly data: Record<string, unknown> = {}) {
    super(message);
    this.name = 'NodeStepError';
  }
}
