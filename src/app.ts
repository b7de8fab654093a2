import { randomUUID } from 'node:crypto';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from './shared/context.js';
import { shedWhenBusy } from './http/backpressure.js';
import { compressionOptions } from './http/compression.js';
import { registerErrorHandler } from './http/error-handler.js';
import { registerHostileInputGuard } from './http/hostile-input.js';
import { serializeRequest } from './http/log-redaction.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { resilientRateLimitStore } from './http/rate-limit-store.js';
import { availabilityGate } from './http/unavailable.js';
import { openApiOptions, registerOpenApiNames } from './http/openapi.js';
import { validatorCompiler } from './http/validation.js';
import { registerRequestMetrics } from './observability/metrics.js';
import { authRoutes } from './modules/auth/routes.js';
import { userRoutes } from './modules/auth/users/routes.js';
import { botRoutes } from './modules/bots/routes.js';
import { guardV1 } from './modules/bots/index.js';
import { botV1Routes } from './modules/bots/v1-routes.js';
import { chatRoutes } from './modules/chat/routes.js';
import { contactRoutes } from './modules/people/routes.js';
import { conversationRoutes } from './modules/conversations/routes.js';
import { inboxRoutes } from './modules/inbox/routes.js';
import { conversationV1Routes } from './modules/conversations/v1-routes.js';
import { lifecycleRoutes } from './modules/conversations/lifecycle-routes.js';
import { eventRoutes } from './modules/events/routes.js';
import { modelRoutes } from './modules/models/routes.js';
import { flowRoutes } from './modules/flow/routes.js';
import { knowledgeImportRoutes } from './modules/knowledge/imports/routes.js';
import { knowledgeRoutes } from './modules/knowledge/routes.js';
import { unansweredRoutes } from './modules/unanswered/routes.js';
import { notificationRoutes } from './modules/notifications/routes.js';
import { preflightRoutes } from './modules/preflight/routes.js';
import { promptVersionRoutes } from './modules/bots/prompt-versions/routes.js';
import { reminderRoutes } from './modules/reminders/routes.js';
import { systemRoutes } from './modules/system/routes.js';
import { usageRoutes } from './modules/usage/routes.js';
import { numbersRoutes } from './modules/numbers/routes.js';
import { outboxRoutes } from './modules/outbox/routes.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { webApp } from './http/web-app.js';
import { testChatRoutes } from './modules/chat/test-chat-routes.js';
import { startScheduler } from './scheduler.js';
import { widgetRoutes } from './modules/widget/routes.js';
import { widgetSettingsRoutes } from './modules/widget/settings-routes.js';
import { widgetVisitorRoutes } from './modules/widget/visitor-routes.js';
import { savedReplyRoutes } from './modules/saved-replies/routes.js';
import { inboxTeamRoutes } from './modules/inbox/team-routes.js';
import { sharePageRoutes } from './modules/widget/index.js';
import { goLiveRoutes } from './modules/golive/routes.js';
import { mailboxRoutes } from './modules/mailboxes/routes.js';
import { postmarkInboundRoutes } from './modules/mailboxes/connectors/postmark-routes.js';
import { connectionRoutes } from './modules/messaging/routes.js';
import { channelWebhookRoutes } from './modules/messaging/webhook-routes.js';
import { templateRoutes } from './modules/messaging/template-routes.js';
import { voiceRoutes } from './modules/voice/routes.js';

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
      serializers: { req: serializeRequest },
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
  ctx.health.attachLog(app.log);
  ctx.tracing?.attachLog(app.log);
  app.addHook('onRequest', availabilityGate(ctx.health));
  app.addHook('onRequest', shedWhenBusy(ctx));
  registerErrorHandler(app);
  registerHostileInputGuard(app);
  registerRequestMetrics(app, ctx.db);
  registerOpenApiNames(app);

  await registerSecurityHeaders(app);
  await app.register(compress, compressionOptions);
  await app.register(cookie);
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    store: resilientRateLimitStore(ctx.coordination.redis, 'parley:rl:', ctx.health.redis),
    skipOnError: false,
  });
  await app.register(swagger, openApiOptions(config.publicBaseUrl));
  await app.register(swaggerUi, { routePrefix: '/docs' });

  await app.register(systemRoutes, { ctx });
  await app.register(authRoutes, { ctx });
  await app.register(userRoutes, { ctx });
  await app.register(chatRoutes, { ctx });
  // The public /v1 API: one guard (key, rate limit per tenant, plan) for all of its routes.
  await app.register(async (v1) => {
    guardV1(v1, ctx);
    await v1.register(botV1Routes, { ctx });
    await v1.register(conversationV1Routes, { ctx });
  });
  await app.register(botRoutes, { ctx });
  await app.register(modelRoutes, { ctx });
  await app.register(conversationRoutes, { ctx });
  await app.register(usageRoutes, { ctx });
  await app.register(numbersRoutes, { ctx });
  await app.register(promptVersionRoutes, { ctx });
  await app.register(flowRoutes, { ctx });
  await app.register(preflightRoutes, { ctx });
  await app.register(eventRoutes, { ctx });
  await app.register(contactRoutes, { ctx });
  await app.register(notificationRoutes, { ctx });
  await app.register(lifecycleRoutes, { ctx });
  await app.register(webhookRoutes, { ctx });
  await app.register(outboxRoutes, { ctx });
  await app.register(reminderRoutes, { ctx });
  await app.register(knowledgeRoutes, { ctx });
  await app.register(knowledgeImportRoutes, { ctx });
  await app.register(testChatRoutes, { ctx });
  await app.register(widgetRoutes, { ctx });
  await app.register(widgetSettingsRoutes, { ctx });
  await app.register(widgetVisitorRoutes, { ctx });
  await app.register(sharePageRoutes, { ctx });
  await app.register(goLiveRoutes, { ctx });
  await app.register(inboxRoutes, { ctx });
  await app.register(inboxTeamRoutes, { ctx });
  await app.register(savedReplyRoutes, { ctx });
  await app.register(unansweredRoutes, { ctx });
  await app.register(mailboxRoutes, { ctx });
  await app.register(postmarkInboundRoutes, { ctx });
  await app.register(connectionRoutes, { ctx });
  await app.register(channelWebhookRoutes, { ctx });
  await app.register(templateRoutes, { ctx });
  await app.register(voiceRoutes, { ctx });
  await app.register(webApp, { dir: config.webDir, widgetDir: config.widgetDir });
  if (ctx.config.webhooks.workerEnabled) startScheduler(app, ctx);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
