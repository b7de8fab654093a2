import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { onRequestHookHandler } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { AppError, ErrorCode, unauthorized } from '../../http/errors.js';
import { INTERNAL_SECURITY, errorResponses } from '../../http/schemas.js';
import { safeEqual } from '../auth/index.js';
import { assertTimeZone } from './calendar.js';
import { DueRemindersResponse, LogReminderBody, LogReminderResponse } from './schema.js';
import { dueReminders, logReminder } from './service.js';

/**
 * The internal key check. Without INTERNAL_API_KEY the endpoints are switched off and answer
 * exactly like an unknown route (404), so they do not reveal themselves; with it, a missing
 * or different X-Internal-API-Key is 401 (compared in constant time).
 */
function requireInternalKey(ctx: AppContext): onRequestHookHandler {
  return async (request) => {
    const configured = ctx.config.auth.internalApiKey;
    if (!configured) {
      throw new AppError(404, ErrorCode.notFound, `Route ${request.method} ${request.url} not found`, {
        details: { resource: 'route' },
      });
    }
    const presented = request.headers['x-internal-api-key'];
    if (typeof presented !== 'string' || presented === '' || !safeEqual(presented, configured)) {
      throw unauthorized('A valid X-Internal-API-Key header is required', { code: 'internal_key_invalid' });
    }
  };
}

/** Archived sandbox trial reminders, called once a day by a workflow tool. */
export const reminderRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const timeZone = ctx.config.reminders.timeZone;
  assertTimeZone(timeZone);
  const guard = requireInternalKey(ctx);
  const tags = ['internal (archived)'];

  app.get(
    '/api/internal/sandbox-reminders',
    {
      onRequest: guard,
      schema: {
        operationId: 'listDueSandboxReminders',
        tags,
        summary: 'Sandbox trial owners due for a 7d, 3d or 1d reminder today',
        security: INTERNAL_SECURITY,
        response: { 200: DueRemindersResponse, ...errorResponses(401, 404) },
      },
    },
    async () => dueReminders(ctx.db, { now: new Date(), timeZone }),
  );

  app.post(
    '/api/internal/sandbox-reminders/log',
    {
      onRequest: guard,
      schema: {
        operationId: 'logSandboxReminder',
        tags,
        summary: 'Record a sent reminder; a second record for the same tenant and type is skipped silently',
        security: INTERNAL_SECURITY,
        body: LogReminderBody,
        response: { 200: LogReminderResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      await logReminder(ctx.db, {
        tenantId: body.tenant_id,
        userEmail: body.user_email,
        reminderType: body.reminder_type,
        templateName: body.template_name,
        status: body.status,
        errorMessage: body.error_message,
      });
      return { success: true };
    },
  );
};
