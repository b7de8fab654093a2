import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/guard.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { setMailboxStaleMinutes } from '../../observability/metrics.js';
import { checkMailbox } from './connectors/check.js';
import {
  ConversationMailQuery,
  CreateMailboxBody,
  MailboxList,
  MailboxParams,
  MailboxSchema,
  MailboxTestResult,
  ReceivedMailList,
  ReceivedMailQuery,
  UpdateMailboxBody,
} from './schema.js';
import { secretStoreFor } from './secret-store.js';
import {
  createMailbox,
  editMailbox,
  getMailbox,
  listBotMailboxes,
  listConversationMails,
  listMailboxMails,
  removeMailbox,
  serializeMailbox,
  type MailboxDeps,
} from './service.js';

/** A bot's mailboxes (e-mail channel), with the bot's permissions: bot:view to read, bot:edit to write. */
export const mailboxRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  setMailboxStaleMinutes(ctx.config.email.staleMinutes);
  const tags = ['dashboard: mailboxes'];
  const security = SESSION_SECURITY;
  const deps = (): MailboxDeps => ({ db: ctx.db, config: ctx.config, secrets: secretStoreFor(ctx.config) });
  const show = (row: Parameters<typeof serializeMailbox>[0]) => serializeMailbox(row, ctx.config);

  app.get(
    '/api/bots/:id/mailboxes',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        tags,
        operationId: 'listMailboxes',
        summary: "The bot's mailboxes with their health (secrets only by name)",
        security,
        params: IdParams,
        response: { 200: MailboxList, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({
      data: (await listBotMailboxes(ctx.db, currentUser(request).tenantId, request.params.id)).map(show),
    }),
  );

  app.post(
    '/api/bots/:id/mailboxes',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        tags,
        operationId: 'createMailbox',
        summary:
          'Connect a mailbox (imap, graph or postmark); secrets are stored encrypted and never shown again',
        security,
        params: IdParams,
        body: CreateMailboxBody,
        response: { 201: MailboxSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const row = await createMailbox(deps(), currentUser(request).tenantId, request.params.id, request.body);
      return reply.status(201).send(show(row));
    },
  );

  app.get(
    '/api/bots/:id/mailboxes/:mailboxId',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        tags,
        operationId: 'getMailbox',
        summary: 'One mailbox with its health',
        security,
        params: MailboxParams,
        response: { 200: MailboxSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      show(
        await getMailbox(ctx.db, currentUser(request).tenantId, request.params.id, request.params.mailboxId),
      ),
  );

  app.patch(
    '/api/bots/:id/mailboxes/:mailboxId',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        tags,
        operationId: 'updateMailbox',
        summary: 'Change a mailbox; a secret given replaces the stored one, an absent one is kept',
        security,
        params: MailboxParams,
        body: UpdateMailboxBody,
        response: { 200: MailboxSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { id, mailboxId } = request.params;
      return show(await editMailbox(deps(), currentUser(request).tenantId, id, mailboxId, request.body));
    },
  );

  app.delete(
    '/api/bots/:id/mailboxes/:mailboxId',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        tags,
        operationId: 'deleteMailbox',
        summary: 'Disconnect a mailbox (its stored mails go with it; conversations stay)',
        security,
        params: MailboxParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeMailbox(ctx.db, currentUser(request).tenantId, request.params.id, request.params.mailboxId);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/bots/:id/mailboxes/:mailboxId/test',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        tags,
        operationId: 'testMailbox',
        summary: 'Check the connection (log in to IMAP and SMTP, or get a Graph token and read the mailbox)',
        security,
        params: MailboxParams,
        response: { 200: MailboxTestResult, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const row = await getMailbox(
        ctx.db,
        currentUser(request).tenantId,
        request.params.id,
        request.params.mailboxId,
      );
      return checkMailbox(ctx, row);
    },
  );

  app.get(
    '/api/bots/:id/mailboxes/:mailboxId/mails',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        tags,
        operationId: 'listMailboxMails',
        summary:
          'The received mails of a mailbox, newest first, one page at a time, with why a mail was not answered (filter status)',
        security,
        params: MailboxParams,
        querystring: ReceivedMailQuery,
        response: { 200: ReceivedMailList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      listMailboxMails(
        ctx.db,
        currentUser(request).tenantId,
        request.params.id,
        request.params.mailboxId,
        request.query,
      ),
  );

  app.get(
    '/api/conversations/:id/mails',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        tags,
        operationId: 'listConversationMails',
        summary:
          'The mails received in an e-mail conversation, newest first, one page at a time, with why a mail was not answered',
        security,
        params: IdParams,
        querystring: ConversationMailQuery,
        response: { 200: ReceivedMailList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      listConversationMails(ctx.db, currentUser(request).tenantId, request.params.id, request.query),
  );
};
