import type { ServiceSchema } from 'moleculer';
import { summaryAction } from './actions/summary.ts';

/** Usage: sums what every `usageSummary` contributor reports (kernel/usage-contract.ts, README.md). */
const usage: ServiceSchema = {
  name: 'usage',
  actions: {
    summary: summaryAction,
  },
};

export default usage;
