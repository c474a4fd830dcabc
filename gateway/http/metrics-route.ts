// GET /metrics: the gateway's metrics in Prometheus text format. Scrapes are not request-logged.
import type { FastifyPluginAsync } from 'fastify';
import { renderMetrics } from '../metrics.ts';

export const metricsRoute: FastifyPluginAsync = async (app) => {
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    const { contentType, body } = await renderMetrics();
    return reply.type(contentType).send(body);
  });
};
