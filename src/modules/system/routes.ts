import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { ErrorBody } from '../../http/schemas.js';
import { metricsAccessAllowed, registry } from '../../observability/metrics.js';

/** Liveness, readiness (database reachable) and Prometheus metrics. */
export const systemRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['system'];
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags,
        summary: 'Liveness',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    {
      schema: {
        operationId: 'getReadiness',
        tags,
        summary: 'Readiness: the database answers, its schema is migrated, Redis (when configured) answers',
        description:
          'Answers within about two seconds whatever the dependencies do. 503 names what is missing: ' +
          '`database` (unreachable), `schema` (migrations not yet applied), `redis`.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }),
          503: Type.Object({
            status: Type.Literal('unavailable'),
            database: Type.String(),
            missing: Type.Array(Type.String()),
          }),
        },
      },
    },
    async (_request, reply) => {
      const missing = await checkReadiness(ctx);
      if (missing.length === 0) return { status: 'ready' as const, database: ctx.db.kind };
      return reply
        .status(503)
        .header('retry-after', '5')
        .send({ status: 'unavailable' as const, database: ctx.db.kind, missing });
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'getMetrics',
        tags,
        summary: 'Prometheus metrics (text exposition format)',
        description: 'With METRICS_TOKEN set, send it as `Authorization: Bearer <token>`.',
        security: [{ metricsToken: [] }, {}],
        response: {
          200: { type: 'string', description: 'Prometheus text exposition format' },
          401: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      if (!metricsAccessAllowed(ctx.config.metricsToken, request.headers.authorization)) {
        return reply.status(401).send({
          error: 'unauthorized',
          code: 'unauthorized',
          message: 'Send the metrics token as Authorization: Bearer <token>',
        });
      }
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
};

/** Longest time /ready waits for a dependency before counting it as missing. */
const READY_TIMEOUT_MS = 2000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Asks the database and Redis now (bounded in time) and returns what is missing. */
async function checkReadiness(ctx: AppContext): Promise<string[]> {
  const { health } = ctx;
  const redis = ctx.coordination.redis;
  const startedIn = health.database.outages;
  await Promise.all([
    within(ctx.db.ping(), READY_TIMEOUT_MS).then(
      () => health.database.markUp(startedIn),
      (error: unknown) => health.database.markDown(error),
    ),
    redis && health.redis
      ? within(redis.ping(), READY_TIMEOUT_MS).then(
          () => health.redis?.markUp(),
          (error: unknown) => health.redis?.markDown(error),
        )
      : undefined,
  ]);
  return health.missing();
}
