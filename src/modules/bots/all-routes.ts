import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { conversationRoutes } from '../conversations/routes.js';
import { usageRoutes } from '../usage/routes.js';
import { botRoutes } from './routes.js';
import { v1Routes } from './v1-routes.js';

/** The public /v1 API and the dashboard's bot, conversation and usage routes. */
export const botApiRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(v1Routes, { ctx });
  await app.register(botRoutes, { ctx });
  await app.register(conversationRoutes, { ctx });
  await app.register(usageRoutes, { ctx });
};
