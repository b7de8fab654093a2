import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { contactRoutes } from '../contacts/routes.js';
import { notificationRoutes } from '../notifications/routes.js';
import { eventRoutes } from './routes.js';

/** The events module: events and bookings, the contacts they book for, notifications, Stripe webhook. */
export const eventModuleRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(eventRoutes, { ctx });
  await app.register(contactRoutes, { ctx });
  await app.register(notificationRoutes, { ctx });
};
