// The processes bench/run.ts measures most parts against: a Temporal dev server, a parked and a
// mining worker, a gateway for tasks (wait budget 0), one that answers inline (30 s), and a bare
// HTTP proxy. Every gateway runs as the container runs it: compiled, with its Node.js flags.
import { compiledGateway } from '../test/support/gateway-process.ts';
import { type OwnTestTemporal, startOwnTestTemporal } from '../test/support/temporal.ts';
import {
  type GatewayProcess,
  startBareProxy,
  startGatewayProcess,
  startMiningWorker,
  startParkedWorker,
} from './stack.ts';

export const PARKED_QUEUE = 'bench-parked';
export const MINING_QUEUE = 'bench-mining';

interface Stoppable {
  stop(): Promise<unknown>;
}

export interface RunStack {
  temporal: OwnTestTemporal;
  gatewayArgs: string[];
  taskGateway: GatewayProcess;
  inlineGateway: GatewayProcess;
  bareProxy: Stoppable & { url: URL };
  /** Registers a child to stop with the stack; returns it. */
  started<T extends Stoppable>(child: T): T;
  /** Stops every child, then Temporal; once, however often it is called. */
  stop(): Promise<void>;
}

export async function startRunStack(log: (line: string) => void): Promise<RunStack> {
  const temporal = await startOwnTestTemporal();
  const children: Stoppable[] = [];
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      for (const child of children.reverse()) await child.stop().catch(() => {});
      await temporal.close();
    })();
    return stopped;
  };
  const started = <T extends Stoppable>(child: T): T => {
    children.push(child);
    return child;
  };
  try {
    log(
      `Temporal dev server at ${temporal.server.address}; compiling the gateway, starting workers and gateways`,
    );
    const temporalAddress = temporal.server.address;
    const gatewayArgs = await compiledGateway();
    started(await startParkedWorker(temporalAddress, PARKED_QUEUE));
    started(await startMiningWorker(temporalAddress, MINING_QUEUE, temporal.dataDir));
    const gateway = async (taskQueue: string, waitBudgetMs: number) =>
      started(await startGatewayProcess({ temporalAddress, taskQueue, waitBudgetMs, nodeArgs: gatewayArgs }));
    const taskGateway = await gateway(PARKED_QUEUE, 0);
    const inlineGateway = await gateway(MINING_QUEUE, 30_000);
    const bareProxy = started(await startBareProxy(temporalAddress, PARKED_QUEUE));
    return { temporal, gatewayArgs, taskGateway, inlineGateway, bareProxy, started, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
