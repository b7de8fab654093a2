/**
 * The providers' public webhooks of a connection, under /v1/channels/:connectionId/:
 * - `GET  webhook`  Meta's verification (hub.mode, hub.verify_token, hub.challenge);
 * - `POST webhook`  messages (and, for Meta, statuses): Meta's X-Hub-Signature-256 over the raw
 *                   bytes, Twilio's X-Twilio-Signature against the connection's public URL;
 * - `POST status`   Twilio's status callbacks.
 * The request body reaches these routes as raw bytes (a content-type parser of this plugin
 * only): the signature is checked before anything is parsed. Each webhook is answered as soon
 * as its messages are stored; the bot's turn runs after that.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { isUuid } from '../../shared/ids.js';
import * as repo from './repository.js';
import type { ConnectionRow } from './repository.js';
import { webhookAuthFailureThrottle } from './guards.js';
import { acceptMessages, afterAccept, setTurnLog } from './inbound.js';
import { applyStatuses } from './outbound.js';
import { ChannelParams, VerifyQuery } from './schema.js';
import { channelSecretsFor } from './secret-store.js';
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

export const channelWebhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  setTurnLog(ctx, app.log);
  const secrets = channelSecretsFor(ctx.config);
  // Raw bytes for every body of these routes: signatures are over what the provider sent.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) =>
    done(null, body),
  );
  const tags = ['messaging'];

  async function connection(id: string): Promise<ConnectionRow | undefined> {
    return isUuid(id) ? repo.findConnectionById(ctx.db, id) : undefined;
  }

  /** 401/403 for a failed signature, counted by the throttle. */
  function refuse(reply: FastifyReply, request: FastifyRequest, id: string, status: 401 | 403) {
    webhookAuthFailureThrottle.fail(id, request.ip);
    return reply.status(status).send({ ok: false });
  }

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
      const conn = await connection(request.params.connectionId);
      const q = request.query;
      const stored = conn?.kind === 'whatsapp_cloud' ? conn.secrets.verify_token : undefined;
      const ok =
        stored !== undefined &&
        q['hub.mode'] === 'subscribe' &&
        typeof q['hub.challenge'] === 'string' &&
        sameText(q['hub.verify_token'] ?? '', secrets.open(stored));
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
        response: {
          200: WebhookReply,
          401: WebhookReply,
          403: WebhookReply,
          404: WebhookReply,
          429: WebhookReply,
        },
      },
    },
    async (request, reply) => {
      const id = request.params.connectionId;
      if (webhookAuthFailureThrottle.blocked(id, request.ip)) return reply.status(429).send({ ok: false });
      const conn = await connection(id);
      if (!conn) return reply.status(404).send({ ok: false });
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      let messages: ParsedInbound[] = [];
      if (conn.kind === 'whatsapp_cloud') {
        const appSecret = conn.secrets.app_secret ? secrets.open(conn.secrets.app_secret) : '';
        const header = request.headers['x-hub-signature-256'];
        if (
          !appSecret ||
          !verifyMetaSignature(raw, typeof header === 'string' ? header : undefined, appSecret)
        )
          return refuse(reply, request, id, 401);
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
      } else {
        const token = conn.secrets.auth_token ? secrets.open(conn.secrets.auth_token) : '';
        const signature = request.headers['x-twilio-signature'];
        const isJson = String(request.headers['content-type'] ?? '').includes('json');
        const fields = isJson ? {} : form(raw);
        const valid =
          token !== '' &&
          verifyTwilioRequest(
            token,
            typeof signature === 'string' ? signature : undefined,
            calledUrl(conn, request, ctx.config),
            {
              form: fields,
              ...(isJson ? { raw: raw.toString('utf8') } : {}),
            },
          );
        if (!valid) return refuse(reply, request, id, typeof signature === 'string' ? 403 : 401);
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
            { phoneNumberId: conn.settings.phone_number_id!, token: secrets.open(conn.secrets.access_token) },
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
        response: {
          200: WebhookReply,
          401: WebhookReply,
          403: WebhookReply,
          404: WebhookReply,
          429: WebhookReply,
        },
      },
    },
    async (request, reply) => {
      const id = request.params.connectionId;
      if (webhookAuthFailureThrottle.blocked(id, request.ip)) return reply.status(429).send({ ok: false });
      const conn = await connection(id);
      if (!conn || conn.kind === 'whatsapp_cloud') return reply.status(404).send({ ok: false });
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const fields = form(raw);
      const token = conn.secrets.auth_token ? secrets.open(conn.secrets.auth_token) : '';
      const signature = request.headers['x-twilio-signature'];
      if (
        !token ||
        !verifyTwilioRequest(
          token,
          typeof signature === 'string' ? signature : undefined,
          calledUrl(conn, request, ctx.config),
          {
            form: fields,
          },
        )
      )
        return refuse(reply, request, id, typeof signature === 'string' ? 403 : 401);
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
