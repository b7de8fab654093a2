/**
 * The providers' public webhooks of a connection, under /v1/channels/:connectionId/:
 * - `GET  webhook`  Meta's verification (hub.mode, hub.verify_token, hub.challenge);
 * - `POST webhook`  messages (and, for Meta, statuses): Meta's X-Hub-Signature-256 over the raw
 *                   bytes, Twilio's X-Twilio-Signature against the connection's public URL;
 * - `POST status`   Twilio's status callbacks.
 * Before any body byte is read (`onRequest`): an address that failed too often on this
 * connection (or overall) is answered 429 with Retry-After by the shared `WebhookAuthThrottle`,
 * an unknown connection 404, and a Content-Length above the provider's cap 413 (Meta 1 MB,
 * Twilio 64 KB: `WEBHOOK_BODY_LIMITS`). Both signatures are over the body, so the body is then
 * read as raw bytes up to that cap (a chunked body is cut off at it) and the signature checked
 * before anything is parsed; a failure is counted by the throttle. Each webhook is answered as
 * soon as its messages are stored; the bot's turn runs after that.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { isUuid } from '../../shared/ids.js';
import * as repo from './repository.js';
import type { ConnectionRow } from './repository.js';
import { acceptMessages, afterAccept, setTurnLog } from './inbound.js';
import { applyStatuses } from './outbound.js';
import { applyTemplateUpdates } from './template-service.js';
import { parseTemplateUpdates } from './templates.js';
import { ChannelParams, VerifyQuery } from './schema.js';
import { AppError } from '../../http/errors.js';
import { WEBHOOK_BODY_LIMITS, WebhookAuthThrottle, type WebhookProvider } from '../../shared/webhook-auth.js';
import { channelSecretsFor, openedOrEmpty } from './secret-store.js';
import { publicBase } from './service.js';
import { parseTwilioMessage, verifyTwilioRequest } from './twilio.js';
import { markRead, parseMetaWebhook, verifyMetaSignature, type ParsedInbound } from './whatsapp.js';

const sameText = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/** The URL the provider called, as it signed it: the connection's public base and the path and query. */
function calledUrl(conn: ConnectionRow, request: FastifyRequest, config: AppContext['config']): string {
  const at = request.url.indexOf('/v1/channels/');
  return `${publicBase(conn, config)}${request.url.slice(at)}`;
}

function form(raw: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) out[k] = v;
  return out;
}

const WebhookReply = Type.Union([Type.String(), Type.Object({ ok: Type.Boolean() })]);

declare module 'fastify' {
  interface FastifyRequest {
    /** The connection of a provider webhook, loaded before its body (onRequest). */
    channelConnection?: ConnectionRow;
  }
}

const providerOf = (conn: ConnectionRow): Extract<WebhookProvider, 'meta' | 'twilio'> =>
  conn.kind === 'whatsapp_cloud' ? 'meta' : 'twilio';

/** Reads a raw body up to `limit` bytes; a longer one (chunked, no Content-Length) is a 413. */
function readCapped(payload: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        payload.removeAllListeners('data');
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    payload.on('end', () => resolve(Buffer.concat(chunks)));
    payload.on('error', reject);
  });
}

const tooLarge = (limit: number) =>
  Object.assign(new Error(`Request body is larger than ${limit} bytes`), {
    statusCode: 413,
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
  });

export const channelWebhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  setTurnLog(ctx, app.log);
  const secrets = channelSecretsFor(ctx.config);
  const throttles: Record<'meta' | 'twilio', WebhookAuthThrottle> = {
    meta: new WebhookAuthThrottle(ctx.coordination, 'meta'),
    twilio: new WebhookAuthThrottle(ctx.coordination, 'twilio'),
  };
  const limitOf = (request: FastifyRequest) =>
    WEBHOOK_BODY_LIMITS[request.channelConnection ? providerOf(request.channelConnection) : 'twilio'];
  // Raw bytes for every body of these routes (signatures are over what the provider sent), up
  // to the cap of the connection's provider.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    readCapped(payload, limitOf(request)).then(
      (body) => done(null, body),
      (error: Error) => done(error, undefined),
    );
  });
  const tags = ['messaging'];

  /**
   * The preamble of both POST routes, before the body: the throttle (429 with Retry-After), the
   * connection of the path of a kind the route serves (404), the provider's body cap (413).
   */
  const before =
    (serves: (conn: ConnectionRow) => boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
      const id = (request.params as { connectionId: string }).connectionId;
      const conn = isUuid(id) ? await repo.findConnectionById(ctx.db, id) : undefined;
      if (!conn || !serves(conn)) return reply.status(404).send({ ok: false });
      try {
        await throttles[providerOf(conn)].check(conn.id, request.ip);
      } catch (error) {
        if (!(error instanceof AppError) || error.statusCode !== 429) throw error;
        return reply
          .status(429)
          .headers(error.headers ?? {})
          .send({ ok: false });
      }
      const length = Number(request.headers['content-length'] ?? 0);
      if (length > WEBHOOK_BODY_LIMITS[providerOf(conn)]) return reply.status(413).send({ ok: false });
      request.channelConnection = conn;
    };

  /** After the signature check: 401/403 counted by the throttle, or the pair's count cleared. */
  async function judged(
    reply: FastifyReply,
    request: FastifyRequest,
    conn: ConnectionRow,
    failure: 401 | 403 | undefined,
  ): Promise<boolean> {
    const throttle = throttles[providerOf(conn)];
    if (failure === undefined) {
      await throttle.succeeded(conn.id, request.ip);
      return true;
    }
    await throttle.failed(conn.id, request.ip);
    await reply.status(failure).send({ ok: false });
    return false;
  }

  /** Twilio's signature over the connection's public URL and the form (or the raw JSON body). */
  function twilioFailure(
    conn: ConnectionRow,
    request: FastifyRequest,
    raw: Buffer,
    fields: Record<string, string>,
    isJson = false,
  ): 401 | 403 | undefined {
    const token = openedOrEmpty(secrets, conn, 'auth_token');
    const signature = request.headers['x-twilio-signature'];
    if (typeof signature !== 'string') return 401;
    const valid =
      token !== '' &&
      verifyTwilioRequest(token, signature, calledUrl(conn, request, ctx.config), {
        form: fields,
        ...(isJson ? { raw: raw.toString('utf8') } : {}),
      });
    return valid ? undefined : 403;
  }

  const response = {
    200: WebhookReply,
    401: WebhookReply,
    403: WebhookReply,
    404: WebhookReply,
    413: WebhookReply,
    429: WebhookReply,
  };

  app.get(
    '/v1/channels/:connectionId/webhook',
    {
      schema: {
        tags,
        operationId: 'verifyChannelWebhook',
        security: [],
        summary:
          "Meta's webhook verification: answers hub.challenge when hub.verify_token is the connection's",
        params: ChannelParams,
        querystring: VerifyQuery,
        response: { 200: Type.String(), 403: Type.Object({ ok: Type.Boolean() }) },
      },
    },
    async (request, reply) => {
      const id = request.params.connectionId;
      const conn = isUuid(id) ? await repo.findConnectionById(ctx.db, id) : undefined;
      const q = request.query;
      const stored = conn?.kind === 'whatsapp_cloud' ? openedOrEmpty(secrets, conn, 'verify_token') : '';
      const ok =
        stored !== '' &&
        q['hub.mode'] === 'subscribe' &&
        typeof q['hub.challenge'] === 'string' &&
        sameText(q['hub.verify_token'] ?? '', stored);
      if (!ok) return reply.status(403).send({ ok: false });
      return reply.type('text/plain').send(q['hub.challenge'] ?? '');
    },
  );

  app.post(
    '/v1/channels/:connectionId/webhook',
    {
      schema: {
        tags,
        operationId: 'receiveChannelWebhook',
        security: [{ metaSignature: [] }, { twilioSignature: [] }],
        summary:
          'Messages from Meta (signed X-Hub-Signature-256) or Twilio (signed X-Twilio-Signature); answered once they are stored',
        params: ChannelParams,
        response,
      },
      onRequest: before(() => true),
    },
    async (request, reply) => {
      const conn = request.channelConnection!;
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      let messages: ParsedInbound[] = [];
      if (conn.kind === 'whatsapp_cloud') {
        const appSecret = openedOrEmpty(secrets, conn, 'app_secret');
        const header = request.headers['x-hub-signature-256'];
        const valid =
          appSecret !== '' &&
          verifyMetaSignature(raw, typeof header === 'string' ? header : undefined, appSecret);
        if (!(await judged(reply, request, conn, valid ? undefined : 401))) return reply;
        let payload: unknown;
        try {
          payload = JSON.parse(raw.toString('utf8'));
        } catch {
          return reply.status(200).send({ ok: false });
        }
        const parsed = parseMetaWebhook(payload);
        messages = parsed.messages;
        if (parsed.statuses.length > 0)
          await ctx.db.transaction((tx) => applyStatuses(tx, conn, parsed.statuses));
        const templateChanges = parseTemplateUpdates(payload);
        if (templateChanges.length > 0)
          await applyTemplateUpdates({ ...ctx, log: request.log }, conn, templateChanges);
      } else {
        const isJson = String(request.headers['content-type'] ?? '').includes('json');
        const fields = isJson ? {} : form(raw);
        const failure = twilioFailure(conn, request, raw, fields, isJson);
        if (!(await judged(reply, request, conn, failure))) return reply;
        const parsed = isJson ? null : parseTwilioMessage(fields);
        if (parsed) messages = [parsed];
      }
      if (!conn.is_active) return reply.status(200).send({ ok: true });
      const accepted = await acceptMessages(ctx, conn, messages);
      // After the commit: the turns (after the quiet window), and Meta's read mark and typing indicator.
      afterAccept(ctx, conn, accepted);
      if (conn.kind === 'whatsapp_cloud' && conn.secrets.access_token) {
        for (const row of accepted.waiting) {
          void markRead(
            ctx.config.messaging.graphBaseUrl,
            {
              phoneNumberId: conn.settings.phone_number_id!,
              token: openedOrEmpty(secrets, conn, 'access_token'),
            },
            row.provider_message_id,
            ctx.config.messaging.sendTimeoutMs,
          ).catch(() => undefined);
        }
      }
      if (conn.kind === 'whatsapp_cloud') return reply.status(200).send({ ok: true });
      // Twilio: an empty TwiML answer (the reply leaves through the Messages API).
      return reply
        .status(200)
        .type('text/xml')
        .send('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    },
  );

  app.post(
    '/v1/channels/:connectionId/status',
    {
      schema: {
        tags,
        operationId: 'receiveChannelStatus',
        security: [{ twilioSignature: [] }],
        summary: "Twilio's status callbacks (signed X-Twilio-Signature): delivery statuses of sent messages",
        params: ChannelParams,
        response,
      },
      onRequest: before((conn) => conn.kind !== 'whatsapp_cloud'),
    },
    async (request, reply) => {
      const conn = request.channelConnection!;
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const fields = form(raw);
      if (!(await judged(reply, request, conn, twilioFailure(conn, request, raw, fields)))) return reply;
      const sid = fields.MessageSid || fields.SmsSid;
      const status = fields.MessageStatus || fields.SmsStatus;
      const query = request.query as Record<string, string | undefined>;
      if (sid && status)
        await ctx.db.transaction((tx) =>
          applyStatuses(tx, conn, [
            {
              providerId: sid,
              status,
              errorCode: fields.ErrorCode || null,
              errorTitle: fields.ErrorMessage || null,
              opaque: query.o ?? null,
            },
          ]),
        );
      return reply.status(200).send({ ok: true });
    },
  );
};
