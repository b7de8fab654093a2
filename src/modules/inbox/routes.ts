import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { openEventStream, sseEvent } from '../../shared/sse.js';
import { fanoutOf, tenantTopic } from '../../coordination/fanout.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses, eventStreamResponse } from '../../http/schemas.js';
import {
  AssignBody,
  InboxConversation,
  InboxDetail,
  InboxList,
  InboxListQuery,
  InboxNote,
  InboxReply,
  Ok,
  TextBody,
  UnreadCount,
} from './schema.js';
import * as inbox from './service.js';
import { sendTemplate } from './template.js';
import { TemplateSendBody } from '../messaging/index.js';

/** Seconds between the stream's keep-alive comments (proxies close idle connections). */
const HEARTBEAT_MS = 25_000;

/**
 * The inbox (session auth): reading needs conversation:view, acting inbox:work (owner, admin,
 * editor, agent). Another tenant's conversation is a 404.
 */
export const inboxRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: inbox'];
  const security = SESSION_SECURITY;
  const withLog = (log: { warn(obj: object, msg: string): void }) => ({ ...ctx, log });
  // Open streams end when the server closes.
  const streams = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const end of [...streams]) end();
  });

  app.get(
    '/api/inbox',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        operationId: 'listInbox',
        tags,
        summary: 'Conversations waiting for a person or held by one, newest activity first',
        security,
        querystring: InboxListQuery,
        response: { 200: InboxList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => inbox.listInboxPage(ctx.db, currentUser(request), request.query),
  );

  app.get(
    '/api/inbox/unread',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        operationId: 'getInboxUnread',
        tags,
        summary: 'How many conversations waiting for anyone or assigned to me have unread customer messages',
        security,
        response: { 200: UnreadCount, ...errorResponses(401, 403) },
      },
    },
    async (request) => inbox.unreadCount(ctx.db, currentUser(request)),
  );

  app.get(
    '/api/inbox/stream',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        operationId: 'streamInbox',
        tags,
        summary:
          'Live inbox updates as server-sent events: `inbox` {conversation_id, status}, `message` {conversation_id, message_id} and `refusal` {conversation_id} (a guard refused a customer message there); `resync` means reload',
        security,
        response: {
          200: eventStreamResponse('`event: <type>` and `data: <JSON>` per event'),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const write = openEventStream(reply);
      const stop = await fanoutOf(ctx.coordination).subscribe(tenantTopic(user.tenantId), (event) => {
        write(sseEvent(event.type, event));
      });
      write(`event: ready\ndata: {}\n\n`);
      // A keep-alive comment now and then, for this connection only (a timer chain, no background job).
      let heartbeat: NodeJS.Timeout;
      const beat = () => {
        write(': keep-alive\n\n');
        heartbeat = setTimeout(beat, HEARTBEAT_MS).unref();
      };
      heartbeat = setTimeout(beat, HEARTBEAT_MS).unref();
      const end = () => {
        if (!streams.delete(end)) return;
        clearTimeout(heartbeat);
        void stop();
        if (!reply.raw.writableEnded) reply.raw.end();
      };
      streams.add(end);
      reply.raw.once('close', end);
    },
  );

  app.get(
    '/api/inbox/:id',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        operationId: 'getInboxConversation',
        tags,
        summary: 'A conversation of the inbox with its latest messages and internal notes',
        security,
        params: IdParams,
        response: { 200: InboxDetail, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => inbox.inboxDetail(ctx.db, currentUser(request), request.params.id),
  );

  const stateChange = (path: string, summary: string, work: typeof inbox.claim, operationId: string) =>
    app.post(
      `/api/inbox/:id/${path}`,
      {
        onRequest: requireUser(ctx, 'inbox:work'),
        schema: {
          operationId,
          tags,
          summary,
          security,
          params: IdParams,
          response: { 200: InboxConversation, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => work(withLog(request.log), currentUser(request), request.params.id),
    );

  stateChange(
    'claim',
    'Take a waiting conversation (409 when a colleague holds it)',
    inbox.claim,
    'claimInboxConversation',
  );
  stateChange(
    'take-over',
    'Take a conversation away from the bot (it becomes mine)',
    inbox.takeOver,
    'takeOverConversation',
  );
  stateChange('give-back', 'Give the conversation back to the bot', inbox.giveBack, 'giveBackConversation');
  stateChange('close', 'Close the conversation', inbox.close, 'closeInboxConversation');

  app.post(
    '/api/inbox/:id/assign',
    {
      onRequest: requireUser(ctx, 'inbox:work'),
      schema: {
        operationId: 'assignInboxConversation',
        tags,
        summary:
          'Assign the conversation to a colleague (null: back to waiting); e-mails them when SMTP is set',
        security,
        params: IdParams,
        body: AssignBody,
        response: { 200: InboxConversation, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      inbox.assign(withLog(request.log), currentUser(request), request.params.id, request.body.user_id),
  );

  app.post(
    '/api/inbox/:id/reply',
    {
      onRequest: requireUser(ctx, 'inbox:work'),
      schema: {
        operationId: 'replyInInbox',
        tags,
        summary: "A person's reply, sent on the conversation's channel through the outbox",
        security,
        params: IdParams,
        body: TextBody,
        response: { 201: InboxReply, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return inbox.reply(withLog(request.log), currentUser(request), request.params.id, request.body);
    },
  );

  app.post(
    '/api/inbox/:id/template',
    {
      onRequest: requireUser(ctx, 'inbox:work'),
      schema: {
        operationId: 'sendTemplateInInbox',
        tags,
        summary:
          "A person sends an approved WhatsApp template (also when the 24-hour window is closed); stored as the person's message, sent through the outbox",
        security,
        params: IdParams,
        body: TemplateSendBody,
        response: { 201: InboxReply, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return sendTemplate(ctx, currentUser(request), request.params.id, request.body, request.log);
    },
  );

  app.post(
    '/api/inbox/:id/notes',
    {
      onRequest: requireUser(ctx, 'inbox:work'),
      schema: {
        operationId: 'addInboxNote',
        tags,
        summary: 'An internal note for colleagues (never sent, not in the bot history)',
        security,
        params: IdParams,
        body: TextBody,
        response: { 201: InboxNote, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return inbox.addNote(withLog(request.log), currentUser(request), request.params.id, request.body);
    },
  );

  app.post(
    '/api/inbox/:id/read',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        operationId: 'markInboxConversationRead',
        tags,
        summary: 'Mark the conversation read (the unread count drops)',
        security,
        params: IdParams,
        response: { 200: Ok, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => inbox.markRead(ctx.db, currentUser(request), request.params.id),
  );
};
