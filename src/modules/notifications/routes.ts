import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { Page } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { NotificationListQuery, NotificationSchema } from './schema.js';
import { listNotificationsPage, readNotification } from './service.js';

/** The tenant's notifications about events, bookings and payments (permission event:view). */
export const notificationRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: notifications'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/notifications',
    {
      onRequest: requireUser(ctx, 'event:view'),
      schema: {
        operationId: 'listNotifications',
        tags,
        summary: 'Notifications, newest first (cursor pagination, filters unread and event_id)',
        security,
        querystring: NotificationListQuery,
        response: { 200: Page(NotificationSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listNotificationsPage(ctx.db, currentUser(request).tenantId, request.query),
  );

  app.post(
    '/api/notifications/:id/read',
    {
      onRequest: requireUser(ctx, 'event:view'),
      schema: {
        operationId: 'markNotificationRead',
        tags,
        summary: 'Mark a notification as read (repeating it keeps the first read time)',
        security,
        params: IdParams,
        response: { 200: NotificationSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => readNotification(ctx.db, currentUser(request).tenantId, request.params.id),
  );
};
