import type { Service, ServiceSchema } from 'moleculer';
import { heartbeatAction } from './actions/heartbeat.ts';
import { listAction } from './actions/list.ts';
import { SelfHeartbeat } from './self-heartbeat.ts';

type WorkersService = Service & { selfHeartbeat?: SelfHeartbeat };

/**
 * Workers: loaded on every node (roles api, control, work). Each node records its own
 * heartbeat; `GET /api/v1/workers` merges the broker registry with the heartbeat table.
 * See README.md for the status rule and the heartbeat contract.
 */
const workers: ServiceSchema = {
  name: 'workers',
  actions: {
    list: listAction,
    heartbeat: heartbeatAction,
  },
  async started(this: WorkersService) {
    this.selfHeartbeat = new SelfHeartbeat(this.broker, this.logger);
    await this.selfHeartbeat.start();
  },
  async stopped(this: WorkersService) {
    await this.selfHeartbeat?.stop();
  },
};

export default workers;
