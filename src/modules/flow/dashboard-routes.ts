import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { preflightRoutes } from '../preflight/routes.js';
import { promptVersionRoutes } from '../prompt-versions/routes.js';
import { flowRoutes } from './routes.js';

/** Everything that shapes what a bot says: prompt versions, blocks and flow steps, pre-flight. */
export const botFlowRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(promptVersionRoutes, { ctx });
  await app.register(flowRoutes, { ctx });
  await app.register(preflightRoutes, { ctx });
};
