import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { setMailboxStaleMinutes } from '../../observability/metrics.js';
import { checkMailbox } from './connectors/check.js';
import { answerAnyway, rawMail, sendToInbox } from './connectors/second-chance.js';
import { forbidden } from '../../http/errors.js';
import {
  AnswerAnywayResult,
  BouncedList,
  BouncedQuery,
  ConversationMailList,
  MailParams,
  SentToInboxResult,
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
  bouncedWarnings,
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
        response: { 200: ConversationMailList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      listConversationMails(ctx.db, currentUser(request).tenantId, request.params.id, request.query),
  );

  const mailboxOf = (request: { params: { id: string; mailboxId: string } }, tenantId: string) =>
    getMailbox(ctx.db, tenantId, request.params.id, request.params.mailboxId);

  app.post(
    '/api/bots/:id/mailboxes/:mailboxId/mails/:mailId/answer',
    {
      onRequest: requireUser(ctx, 'inbox:work'),
      schema: {
        tags,
        operationId: 'answerMailAnyway',
        summary:
          'Answer a mail that was not answered anyway: the turn runs once, marked forced (never for a refused sender address)',
        security,
        params: MailParams,
        response: { 200: AnswerAnywayResult, ...errorResponses(401, 403, 404, 409, 503) },
      },
    },
    async (request) => {
      const user = currentUser(request);
      return answerAnyway(ctx, await mailboxOf(request, user.tenantId), request.params.mailId);
    },
  );

  app.post(
    '/api/bots/:id/mailboxes/:mailboxId/mails/:mailId/inbox',
    {
      onRequest: requireUser(ctx, 'inbox:work'),
      schema: {
        tags,
        operationId: 'sendMailToInbox',
        summary: 'Send a mail that was not answered to the inbox: a conversation waiting for a person',
        security,
        params: MailParams,
        response: { 200: SentToInboxResult, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const user = currentUser(request);
      return sendToInbox(ctx, await mailboxOf(request, user.tenantId), request.params.mailId);
    },
  );

  app.get(
    '/api/bots/:id/mailboxes/:mailboxId/mails/:mailId/raw',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        tags,
        operationId: 'downloadRawMail',
        summary: 'The mail as received (message/rfc822), for the owner and admins',
        security,
        params: MailParams,
        response: { 200: Type.String({ description: 'RFC 5322 mail' }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      if (user.role !== 'owner' && user.role !== 'admin')
        throw forbidden('Only the owner and admins may download a mail as received');
      const mail = await rawMail(ctx, await mailboxOf(request, user.tenantId), request.params.mailId);
      return reply
        .header('content-type', 'message/rfc822')
        .header('content-disposition', `attachment; filename="mail-${request.params.mailId}.eml"`)
        .header('cache-control', 'no-store')
        .send(mail.raw as unknown as string);
    },
  );

  app.get(
    '/api/mail-bounces',
    {
      onRequest: requireUser(ctx, 'contact:view'),
      schema: {
        tags,
        operationId: 'listMailBounces',
        summary: 'Whether replies to an address bounced (the warning on a contact)',
        security,
        querystring: BouncedQuery,
        response: { 200: BouncedList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => bouncedWarnings(ctx.db, currentUser(request).tenantId, request.query.address),
  );
};
