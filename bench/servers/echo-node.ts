import { ServiceBroker } from 'moleculer';
import { connect } from 'nats';
import { loadConfig } from '../../config/load.ts';
import { brokerOptions } from '../../moleculer.config.ts';

/**
 * Process B of bench/nats-call.ts: a broker built from the kernel's own brokerOptions on the
 * NATS transporter, with a service `bench` whose action `bench.echo` returns its params. It also
 * echoes messages on the raw NATS subject `<namespace>.raw-echo` to their reply subject, the
 * transport-only baseline.
 * NAMESPACE, NODE_ID and TRANSPORTER come from the environment.
 */
const config = loadConfig(process.env, '/nonexistent/.env');
const broker = new ServiceBroker(brokerOptions(config));
broker.createService({
  name: 'bench',
  actions: {
    echo: { handler: (ctx) => ctx.params },
  },
});

const nc = await connect({ servers: config.env.TRANSPORTER.replace(/^nats:\/\//, '') });
nc.subscribe(`${config.env.NAMESPACE}.raw-echo`, { callback: (_err, msg) => msg.respond(msg.data) });
await nc.flush();
await broker.start();

const stop = async () => {
  await broker.stop().catch(() => undefined);
  await nc.close().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
