import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { requireApiKey, tenantOfKey, apiKeyCode } from '../auth/index.js';
import { AppError, CHAT_TEXT, forbidden, unauthorized } from '../../http/errors.js';
import { rateLimitFor, rateLimitPolicyHeader } from '../../http/rate-limit.js';
import { findTenantPlan } from '../tenants/index.js';

/**
 * The key check speaks the chat endpoint's German texts; /v1 answers in the one error shape
 * of all non-chat endpoints (`{error: <code>, message}`), so its 401s are restated here.
 */
const UNAUTHORIZED_MESSAGES: Record<string, string> = {
  [CHAT_TEXT.keyRequired]: 'Send the tenant API key as Authorization: Bearer <key>',
  [CHAT_TEXT.keyInvalid]: 'The API key is invalid or has been revoked',
  [CHAT_TEXT.keyExpired]: 'The API key has expired',
};

/**
 * The checks every /v1 route runs, in this order:
 * 1. onRequest: tenant API key from `Authorization: Bearer` only (401 otherwise);
 * 2. preParsing: 60 requests per minute per tenant, shared by all /v1 routes (429 with the
 *    RateLimit headers), before the body is read;
 * 3. preValidation: the tenant's plan must include API access (403), before the body is judged.
 */
export function guardV1(app: FastifyInstance, ctx: AppContext): void {
  const verifyKey = requireApiKey(ctx, { allowHeader: false });
  app.addHook('onRequest', async (request, reply) => {
    try {
      await verifyKey.call(app, request, reply, () => undefined);
    } catch (error) {
      if (error instanceof AppError && error.statusCode === 401) {
        throw unauthorized(UNAUTHORIZED_MESSAGES[error.error] ?? error.message, {
          code: apiKeyCode(error.error),
        });
      }
      throw error;
    }
  });
  app.addHook('onRequest', rateLimitPolicyHeader());
  const limit = app.rateLimit(rateLimitFor('v1'));
  app.addHook('preParsing', async (request, reply) => {
    await limit.call(app, request, reply);
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const plan = await findTenantPlan(ctx.db, tenantOfKey(request).tenantId);
    if (!plan?.api_access) {
      throw forbidden("The tenant's plan does not include API access; upgrade the plan to use /v1", {
        code: 'plan_without_api',
      });
    }
  });
}
