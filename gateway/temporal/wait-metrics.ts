// The bounded wait, measured: wraps a MiningBackend so every wait() lands in
// mcp_gateway_wait_duration_seconds with how it ended. Every other method passes through as is.

import { metrics } from '../metrics.ts';
import type { MiningBackend } from './mining-backend.ts';

export function withWaitMetrics(backend: MiningBackend): MiningBackend {
  const wait: MiningBackend['wait'] = async (workflowId, budgetMs, signal) => {
    const elapsed = metrics.stopwatch();
    try {
      const outcome = await backend.wait(workflowId, budgetMs, signal);
      const end = outcome.kind === 'closed' ? 'closed' : signal?.aborted ? 'caller_gone' : 'budget_spent';
      metrics.waitObserved(elapsed(), end);
      return outcome;
    } catch (err) {
      metrics.waitObserved(elapsed(), 'error');
      throw err;
    }
  };
  return new Proxy(backend, {
    get(target, property) {
      if (property === 'wait') return wait;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
