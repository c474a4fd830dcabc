// GET /healthz: the process is up. GET /readyz: Temporal answers within a bounded time (503 if not).
import type { FastifyPluginAsync } from 'fastify';
import type { TemporalBackend } from '../temporal/backend.ts';

export interface HealthOptions {
  backend: TemporalBackend;
  readyTimeoutMs: number;
}

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, { backend, readyTimeoutMs }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const tooSlow = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${readyTimeoutMs} ms`)), readyTimeoutMs);
    });
    const ping = backend.ping(readyTimeoutMs);
    ping.catch(() => {}); // once the bound has answered 503, a late failure has no one to tell
    try {
      await Promise.race([ping, tooSlow]);
      return { status: 'ready', temporal: 'reachable' };
    } catch (err) {
      reply.code(503);
      return { status: 'unavailable', temporal: 'unreachable', error: (err as Error).message };
    } finally {
      clearTimeout(timer);
    }
  });
};
