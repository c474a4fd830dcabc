// The worker of the conformance fixture workflows (test/fixtures/conformance/worker.ts) as a child
// process on a test Temporal: what the conformance suite, the input-round tests and their bench run.
import { startTestProcess, type TestProcess, type TestProcessOptions } from './child-process.ts';

export function startConformanceWorker(
  /** TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE (TestTemporal.env). */
  temporal: Record<string, string>,
  options: Partial<TestProcessOptions> = {},
): Promise<TestProcess> {
  return startTestProcess({
    name: 'conformance worker',
    command: process.execPath,
    args: ['--import', 'tsx', 'test/fixtures/conformance/worker.ts'],
    env: { ...temporal },
    readyText: 'worker: polling task queue',
    readyTimeoutMs: 120_000,
    ...options,
  });
}
