/**
 * Twilio's webhooks and the ConversationRelay socket of a `twilio_voice` connection, under
 * /v1/channels/:connectionId/voice/…: incoming (the number's voice URL), relay (WebSocket),
 * turn and poll (the Gather loop), handoff (`<Connect action>`), status (call status
 * callback). Every request is signed by Twilio with the connection's auth token
 * (`X-Twilio-Signature`, checked against the public URL): 401 without, 403 when wrong, 429 after
 * repeated failures (`shared/webhook-auth.ts`); an unknown connection is 404. Every answer is TwiML.
 */
import websocket from '@fastify/websocket';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import twilio from 'twilio';
import { AppError, ErrorCode, notFound, unauthorized } from '../../http/errors.js';
import { errorResponses } from '../../http/schemas.js';
import { WEBHOOK_BODY_LIMITS, WebhookAuthThrottle } from '../../shared/webhook-auth.js';
import type { AppContext } from '../../shared/context.js';
import { loadVoiceConnection, voiceUrls, type VoiceConnection } from './connection.js';
import { RelaySession } from './relay.js';
import { engineTurnRunner, type VoiceTurnRunner } from './runner.js';
import * as service from './service.js';
import { claimTurn, findCall, setTurnAnswer, turnAnswer } from './repository.js';
import type { HandoffData } from './service.js';
import { PHRASES } from './speech/phrases.js';
import { voiceLanguageOf } from './speech/numbers.js';
import { dialTwiml, fillerTwiml, gatherTwiml, hangUpTwiml, relayTwiml, sayAndHangUpTwiml } from './twiml.js';

/** How long a Gather turn waits for the model before the filler (ms). */
export const FILLER_AFTER_MS = 1500;
/** How often the poll asks again before giving up on a turn. */
const MAX_POLLS = 10;
/** Silence after the bot spoke before the relay asks again (ms). */
export const RELAY_SILENCE_MS = 8000;

export interface VoiceRouteOptions {
  ctx: AppContext;
  runner?: VoiceTurnRunner;
  fillerAfterMs?: number;
  relaySilenceMs?: number;
}

type Params = { connectionId: string };
type Form = Record<string, string>;

declare module 'fastify' {
  interface FastifyRequest {
    voiceConnection?: VoiceConnection;
  }
}

function twiml(reply: FastifyReply, xml: string): FastifyReply {
  return reply.type('text/xml; charset=utf-8').send(xml);
}

function parseForm(body: string): Form {
  return Object.fromEntries(new URLSearchParams(body));
}

export const voiceRoutes: FastifyPluginAsync<VoiceRouteOptions> = async (app, options) => {
  const { ctx } = options;
  const runner = options.runner ?? engineTurnRunner(ctx);
  const fillerAfterMs = options.fillerAfterMs ?? FILLER_AFTER_MS;
  const publicBase = ctx.config.publicBaseUrl;

  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parseForm(String(body)));
  });

  const throttle = new WebhookAuthThrottle(ctx.coordination, 'twilio');
  /**
   * The connection of the path, and Twilio's signature over the public URL and the form: an
   * address that failed too often is answered 429 first, a missing signature 401, a wrong one 403.
   */
  const verify = async (request: FastifyRequest) => {
    const { connectionId } = request.params as Params;
    await throttle.check(connectionId, request.ip);
    const connection = await loadVoiceConnection(ctx, connectionId);
    if (!connection) throw notFound('Channel connection');
    const signature = request.headers['x-twilio-signature'];
    const base = (connection.publicBaseUrl ?? publicBase).replace(/\/+$/, '');
    let url = `${base}${request.url}`;
    if (request.headers.upgrade?.toLowerCase() === 'websocket') url = url.replace(/^http/, 'ws');
    const params = request.method === 'POST' ? ((request.body ?? {}) as Form) : {};
    if (typeof signature !== 'string') {
      await throttle.failed(connectionId, request.ip);
      throw unauthorized('X-Twilio-Signature missing');
    }
    if (!twilio.validateRequest(connection.authToken, signature, url, params)) {
      await throttle.failed(connectionId, request.ip);
      throw new AppError(403, ErrorCode.forbidden, 'X-Twilio-Signature does not match');
    }
    await throttle.succeeded(connectionId, request.ip);
    request.voiceConnection = connection;
  };

  /** Each route's OpenAPI entry: signed by Twilio, answered with TwiML (the relay: a WebSocket). */
  const route = (operationId: string, summary: string, success = 'TwiML') => ({
    bodyLimit: WEBHOOK_BODY_LIMITS.twilio,
    schema: {
      tags: ['voice'],
      operationId,
      summary,
      security: [{ twilioSignature: [] }],
      params: Type.Object({ connectionId: Type.String() }),
      response: {
        200: { description: success, content: { 'text/xml': { schema: Type.String() } } },
        ...errorResponses(401, 403, 404, 429),
      },
    },
    preHandler: verify,
  });
  const connectionOf = (request: FastifyRequest) => request.voiceConnection!;

  app.post<{ Params: Params; Body: Form }>(
    '/v1/channels/:connectionId/voice/incoming',
    route(
      'answerVoiceCall',
      "Twilio's incoming-call webhook of a voice number: ConversationRelay or the first Gather",
    ),
    async (request, reply) => {
      const connection = connectionOf(request);
      const urls = voiceUrls(connection, publicBase);
      const lang = connection.language;
      const admitted = await service.startCall(ctx, connection, {
        callSid: request.body.CallSid ?? '',
        from: request.body.From ?? '',
      });
      if (admitted.kind === 'refused')
        return twiml(reply, sayAndHangUpTwiml({ say: admitted.say, language: lang }));
      const greeting = service.greetingOf(connection, await service.botName(ctx, connection));
      if (connection.mode === 'gather') {
        return twiml(
          reply,
          gatherTwiml({
            say: greeting,
            language: lang,
            actionUrl: urls.turn(1),
            silenceUrl: urls.silence(1),
          }),
        );
      }
      return twiml(
        reply,
        relayTwiml({ relayUrl: urls.relay, handoffUrl: urls.handoff, language: lang, greeting }),
      );
    },
  );

  app.get<{ Params: Params }>(
    '/v1/channels/:connectionId/voice/relay',
    {
      ...route(
        'relayVoiceCall',
        "ConversationRelay's WebSocket: Twilio streams the caller's words, the bot answers token by token",
        'WebSocket after the upgrade',
      ),
      preHandler: undefined,
      preValidation: verify,
      websocket: true,
      // The call was admitted by its incoming webhook: a busy database slows it, never drops it.
      config: { continuesAdmitted: true },
    },
    (socket, request) => {
      const session = new RelaySession(
        ctx,
        runner,
        connectionOf(request),
        (message) => {
          if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
        },
        { silenceMs: options.relaySilenceMs ?? RELAY_SILENCE_MS, log: request.log },
      );
      socket.on('message', (data: Buffer) => session.handle(data.toString('utf8')));
      socket.on('close', () => session.close());
    },
  );

  /** The TwiML that answers a Gather turn: what is said, then the next turn's Gather (or the end). */
  const turnTwiml = async (connection: VoiceConnection, call: service.VoiceCall, n: number, form: Form) => {
    const urls = voiceUrls(connection, publicBase);
    const spoken = await service.respond(ctx, runner, connection, call, {
      speech: form.SpeechResult ?? null,
      digits: form.Digits ?? null,
    });
    const lang = voiceLanguageOf(call.language);
    if (spoken.end) {
      const after = await service.afterRelay(ctx, connection, call, spoken.end);
      if (after.kind === 'dial') {
        return dialTwiml({
          say: after.say,
          language: after.lang,
          number: after.number,
          callerId: connection.phoneNumber,
        });
      }
      const say =
        after.kind === 'say'
          ? `${spoken.end.reason === 'handover' ? `${spoken.say} ` : ''}${after.say}`
          : spoken.say;
      return sayAndHangUpTwiml({ say, language: lang });
    }
    return gatherTwiml({
      say: spoken.say,
      language: lang,
      actionUrl: urls.turn(n + 1),
      silenceUrl: urls.silence(n + 1),
    });
  };

  app.post<{ Params: Params; Body: Form; Querystring: { n?: string; silence?: string } }>(
    '/v1/channels/:connectionId/voice/turn',
    route(
      'answerVoiceTurn',
      'A Gather turn: what the caller said or pressed, answered with speech and the next Gather',
    ),
    async (request, reply) => {
      const connection = connectionOf(request);
      const urls = voiceUrls(connection, publicBase);
      const n = Number(request.query.n);
      const call = await findCall(ctx.db, connection.id, request.body.CallSid ?? '');
      if (!call || !Number.isInteger(n) || n < 1) return twiml(reply, hangUpTwiml());
      const lang = voiceLanguageOf(call.language);
      const form = request.query.silence ? {} : request.body;
      if (!(await claimTurn(ctx.db, call.call_sid, n))) {
        // Twilio retried the callback: the turn is answered once; the retry gets that answer.
        const stored = await turnAnswer(ctx.db, call.call_sid, n);
        if (stored?.answer) return twiml(reply, stored.answer);
        return twiml(
          reply,
          fillerTwiml({ say: PHRASES[lang].filler, language: lang, pollUrl: urls.poll(n, 1) }),
        );
      }
      const answering = turnTwiml(connection, call, n, form)
        .catch((error: unknown) => {
          request.log.error({ err: error }, 'voice turn failed');
          return sayAndHangUpTwiml({ say: PHRASES[lang].unavailable, language: lang });
        })
        .then(async (xml) => {
          await setTurnAnswer(ctx.db, call.call_sid, n, xml);
          return xml;
        });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), fillerAfterMs);
      });
      const xml = await Promise.race([answering, late]);
      clearTimeout(timer);
      if (xml !== null) return twiml(reply, xml);
      answering.catch(() => undefined);
      return twiml(
        reply,
        fillerTwiml({ say: PHRASES[lang].filler, language: lang, pollUrl: urls.poll(n, 1) }),
      );
    },
  );

  app.post<{ Params: Params; Body: Form; Querystring: { n?: string; attempt?: string } }>(
    '/v1/channels/:connectionId/voice/poll',
    route('pollVoiceTurn', "A Gather turn's answer when the model needed longer than the filler"),
    async (request, reply) => {
      const connection = connectionOf(request);
      const urls = voiceUrls(connection, publicBase);
      const n = Number(request.query.n);
      const attempt = Number(request.query.attempt) || 1;
      const call = await findCall(ctx.db, connection.id, request.body.CallSid ?? '');
      if (!call) return twiml(reply, hangUpTwiml());
      const lang = voiceLanguageOf(call.language);
      const stored = await turnAnswer(ctx.db, call.call_sid, n);
      if (stored?.answer) return twiml(reply, stored.answer);
      if (!stored || attempt >= MAX_POLLS) {
        return twiml(reply, sayAndHangUpTwiml({ say: PHRASES[lang].unavailable, language: lang }));
      }
      return twiml(
        reply,
        fillerTwiml({ say: PHRASES[lang].filler, language: lang, pollUrl: urls.poll(n, attempt + 1) }),
      );
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/v1/channels/:connectionId/voice/handoff',
    route('handOffVoiceCall', "The ConversationRelay's end: dial the hand-over number or say goodbye"),
    async (request, reply) => {
      const connection = connectionOf(request);
      const call = await findCall(ctx.db, connection.id, request.body.CallSid ?? '');
      let data: HandoffData | null = null;
      try {
        data = request.body.HandoffData ? (JSON.parse(request.body.HandoffData) as HandoffData) : null;
      } catch {
        data = null;
      }
      const after = await service.afterRelay(ctx, connection, call, data);
      if (after.kind === 'dial') {
        return twiml(
          reply,
          dialTwiml({
            say: after.say,
            language: after.lang,
            number: after.number,
            callerId: connection.phoneNumber,
          }),
        );
      }
      if (after.kind === 'say')
        return twiml(reply, sayAndHangUpTwiml({ say: after.say, language: after.lang }));
      return twiml(reply, hangUpTwiml());
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/v1/channels/:connectionId/voice/status',
    route('receiveVoiceStatus', "Twilio's call status callback: the call's final status and duration"),
    async (request, reply) => {
      const duration = Number(request.body.CallDuration);
      await service.callStatus(ctx, connectionOf(request), {
        callSid: request.body.CallSid ?? '',
        status: request.body.CallStatus ?? '',
        durationSeconds:
          Number.isFinite(duration) && request.body.CallDuration !== undefined ? duration : null,
      });
      return reply.code(204).send();
    },
  );
};
