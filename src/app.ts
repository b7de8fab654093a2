import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { registerErrorHandler } from './http/error-handler.js';
import { validatorCompiler } from './http/validation.js';
import { authRoutes } from './modules/auth/routes.js';
import { eventModuleRoutes } from './modules/events/all-routes.js';
import { chatRoutes } from './modules/chat/routes.js';
import { botFlowRoutes } from './modules/flow/dashboard-routes.js';
import { botApiRoutes } from './modules/bots/all-routes.js';
import { systemRoutes } from './modules/system/routes.js';
import { reminderRoutes } from './modules/reminders/routes.js';
import { knowledgeRoutes } from './modules/knowledge/routes.js';
import { webhookRoutes } from './modules/webhooks/routes.js';

/** Log paths that may hold secrets; pino replaces their values. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-internal-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.key',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.secret',
];

const REQUEST_ID_PATTERN = /^[\w.-]{1,100}$/;

export interface BuildAppOptions {
  /** Where logs go (tests capture them); standard output by default. */
  logStream?: { write(line: string): void };
}

export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler());
  app.decorateRequest('apiKey', null);
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandler(app);

  await app.register(cookie);
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    redis: ctx.coordination.redis,
    nameSpace: 'parley:rl:',
    skipOnError: false,
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '1.0.0',
        description:
          'Multi-tenant platform for AI chatbots: chat, public /v1 API, dashboard, events, webhooks.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Tenant API key (svc_…)' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          session: { type: 'apiKey', in: 'cookie', name: 'parley_session' },
          sessionBearer: { type: 'http', scheme: 'bearer', description: 'Dashboard session token (pst_…)' },
          internalKey: { type: 'apiKey', in: 'header', name: 'X-Internal-API-Key' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  await app.register(systemRoutes, { ctx });
  await app.register(authRoutes, { ctx });
  await app.register(eventModuleRoutes, { ctx });
  await app.register(chatRoutes, { ctx });
  await app.register(botFlowRoutes, { ctx });
  await app.register(botApiRoutes, { ctx });
  await app.register(webhookRoutes, { ctx });
  await app.register(reminderRoutes, { ctx });
  await app.register(knowledgeRoutes, { ctx });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
