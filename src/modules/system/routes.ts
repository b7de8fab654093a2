import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppContext } from '../../context.js';

/** Liveness, readiness (database reachable) and Prometheus metrics. */
export const systemRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'parley_' });
  const duration = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    duration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });

  const tags = ['system'];
  app.get(
    '/health',
    { schema: { tags, summary: 'Liveness', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    {
      schema: {
        tags,
        summary: 'Readiness: the database answers',
        response: {
          200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }),
          503: Type.Object({ status: Type.Literal('unavailable'), database: Type.String() }),
        },
      },
    },
    async (_request, reply) => {
      try {
        await ctx.db.query('SELECT 1');
        return { status: 'ready' as const, database: ctx.db.kind };
      } catch {
        return reply.status(503).send({ status: 'unavailable' as const, database: ctx.db.kind });
      }
    },
  );

  app.get(
    '/metrics',
    { schema: { tags, summary: 'Prometheus metrics (text exposition format)' } },
    async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
};
