import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { listUnanswered, resolveUnanswered } from './service.js';

const UnansweredGroupSchema = Type.Object(
  {
    key: Type.String({ description: "The group's words after normalisation, sorted" }),
    question: Type.String({ description: 'The newest wording of the question' }),
    count: Type.Integer({ minimum: 1 }),
    handed_over: Type.Integer({ minimum: 0, description: 'Occurrences that were handed over' }),
    last_seen: Type.String({ format: 'date-time' }),
    conversation_ids: Type.Array(Type.String({ format: 'uuid' }), { description: 'Up to 20' }),
    person_answer: Type.Union([Type.String(), Type.Null()], {
      description:
        "A person's reply answering the question in one of the conversations (their first reply with substance, leading greetings left out), when one exists",
    }),
  },
  { title: 'UnansweredGroup' },
);

/** Questions a bot could not answer from knowledge, grouped, and marking a group handled. */
export const unansweredRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['knowledge'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/bots/:id/unanswered',
    {
      onRequest: requireUser(ctx, 'knowledge:view'),
      schema: {
        operationId: 'listUnansweredQuestions',
        tags,
        summary:
          'Customer questions the bot answered without knowledge or handed over, grouped by their words, most frequent first',
        security,
        params: IdParams,
        querystring: Type.Object(
          { days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 90 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(UnansweredGroupSchema) }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      listUnanswered(ctx.db, currentUser(request).tenantId, request.params.id, request.query.days ?? 90),
  );

  app.post(
    '/api/bots/:id/unanswered/resolve',
    {
      onRequest: requireUser(ctx, 'knowledge:edit'),
      schema: {
        operationId: 'resolveUnansweredQuestion',
        tags,
        summary: 'Mark a group of unanswered questions as handled (a later occurrence shows it again)',
        security,
        params: IdParams,
        body: Type.Object(
          { key: Type.String({ minLength: 1, maxLength: 500, description: 'The group key' }) },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      await resolveUnanswered(ctx.db, user.tenantId, request.params.id, user.id, request.body.key);
      return reply.status(204).send(null);
    },
  );
};
