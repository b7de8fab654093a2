/**
 * The outbox senders of the messaging channels, one per provider: `whatsapp.send` (Meta's Cloud
 * API) and `twilio.send` (Twilio's Messages API for SMS and WhatsApp). Payload `{outbound_id}`;
 * the row holds the provider bodies, so every attempt sends the same message.
 *
 * Neither provider has an idempotency key, so an attempt whose answer never came (a timeout, a
 * broken connection after the request left) is not sent again automatically: the row becomes
 * `unknown`, the outbox message is dead with that reason, and the provider's status webhook
 * (matched by the outbound id Meta echoes, or Twilio's status callback URL) settles the row.
 * "Send again" in the dead letters sends it once more, on a person's decision.
 */
import type { AppContext } from '../../shared/context.js';
import type { Queryable } from '../../db/database.js';
import { OutboxWorker, type OutboxMessage, type OutboxSender, type SendResult } from '../outbox/index.js';
import * as repo from './repository.js';
import type { ConnectionRow, OutboundRow } from './repository.js';
import { hasWindow, recordProviderError, TWILIO_SEND_KIND, WHATSAPP_SEND_KIND } from './outbound.js';
import { OPTED_OUT_TEXT, WINDOW_CLOSED_TEXT, backoffMs, providerError, windowState } from './rules.js';
import { channelSecretsFor } from './secret-store.js';
import { statusCallbackUrl } from './service.js';
import { bareNumber, sendTwilio } from './twilio.js';
import { contentSidFor } from './twilio-content.js';
import { sendWhatsApp, type SendOutcome } from './whatsapp.js';

/** Attempts in one round before a message is dead. */
const MAX_ATTEMPTS = 8;

export const AMBIGUOUS_TEXT =
  'Keine Antwort des Anbieters: ob die Nachricht angekommen ist, ist offen (Status „unknown“). Sie wird nicht automatisch erneut gesendet; der Status des Anbieters klärt es.';

type Provider = (
  ctx: AppContext,
  conn: ConnectionRow,
  row: OutboundRow,
  part: Record<string, unknown>,
) => Promise<SendOutcome>;

const viaMeta: Provider = (ctx, conn, row, part) =>
  sendWhatsApp(
    ctx.config.messaging.graphBaseUrl,
    {
      phoneNumberId: conn.settings.phone_number_id!,
      token: channelSecretsFor(ctx.config).open(conn, 'access_token'),
    },
    row.to_number,
    part,
    row.id,
    ctx.config.messaging.sendTimeoutMs,
  );

/**
 * What a Twilio part sends: a template's content (`content_sid`, `content_variables`), a block's
 * content (`content`: created once through the Content API, else the numbered list in `body`),
 * or the text.
 */
async function twilioMessageOf(
  ctx: AppContext,
  conn: ConnectionRow,
  account: { sid: string; token: string },
  part: Record<string, unknown>,
): Promise<{ body: string } | { contentSid: string; contentVariables?: string }> {
  if (typeof part.content_sid === 'string')
    return { contentSid: part.content_sid, contentVariables: String(part.content_variables ?? '{}') };
  if (part.content && typeof part.content === 'object') {
    try {
      const { twilioContentBaseUrl: base, sendTimeoutMs } = ctx.config.messaging;
      const request = part.content as Record<string, unknown>;
      return { contentSid: await contentSidFor(ctx.db, conn.id, base, account, request, sendTimeoutMs) };
    } catch {
      // Twilio did not create the content: the numbered list is understood as well.
    }
  }
  return { body: String(part.body ?? '') };
}

const viaTwilio: Provider = async (ctx, conn, row, part) => {
  const prefix = conn.kind === 'twilio_whatsapp' ? 'whatsapp:' : '';
  const account = {
    sid: conn.settings.account_sid!,
    token: channelSecretsFor(ctx.config).open(conn, 'auth_token'),
  };
  return sendTwilio(
    ctx.config.messaging.twilioApiBaseUrl,
    account,
    {
      from: `${prefix}${bareNumber(conn.settings.from_number!)}`,
      to: `${prefix}${row.to_number}`,
      ...(await twilioMessageOf(ctx, conn, account, part)),
      statusCallback: `${statusCallbackUrl(conn, ctx.config)}?o=${row.id}`,
    },
    ctx.config.messaging.sendTimeoutMs,
  );
};

const done = (verdict: SendResult['verdict'], extra: Partial<SendResult> = {}): SendResult => ({
  verdict,
  durationMs: 0,
  ...extra,
});

async function refuse(
  ctx: AppContext,
  row: OutboundRow,
  text: string,
  code: string | null,
): Promise<SendResult> {
  await repo.advanceOutbound(ctx.db, row.id, 'refused', 7, { errorCode: code, errorText: text });
  return done({ kind: 'permanent', reason: text.slice(0, 300) });
}

/** One attempt of one outbound row: the platform's rules first, then each part not yet sent. */
async function attempt(ctx: AppContext, message: OutboxMessage, provider: Provider): Promise<SendResult> {
  const started = Date.now();
  const { outbound_id: id } = message.payload as { outbound_id?: string };
  const row = id ? await repo.findOutbound(ctx.db, id) : undefined;
  if (!row) return done({ kind: 'permanent', reason: 'Nothing to send: the message is gone' });
  const firstOfRound = message.attempts - message.round_start === 1;
  // Settled already; an `unknown` row is sent again only by a person's "send again".
  if (row.status_rank >= 3 || (row.status === 'unknown' && !firstOfRound)) return done({ kind: 'sent' });
  const conn = await repo.findConnectionById(ctx.db, row.connection_id);
  if (!conn) return done({ kind: 'permanent', reason: 'The connection was removed' });
  if (!conn.is_active || conn.unhealthy_since) return done({ kind: 'held', delayMs: 5 * 60_000 });
  if (!row.body.opt_out_notice && (await repo.isOptedOut(ctx.db, conn.id, row.to_number)))
    return refuse(ctx, row, OPTED_OUT_TEXT, 'opted_out');
  if (hasWindow(conn) && !(row.body as { template?: boolean }).template) {
    const window = windowState(await repo.lastCustomerMessageAt(ctx.db, conn.id, row.to_number), new Date());
    if (!window.open) return refuse(ctx, row, WINDOW_CLOSED_TEXT, 'window_closed');
  }
  const ids = [...row.provider_message_ids];
  // Parts already accepted (an earlier attempt stopped half-way) are not sent again.
  for (const part of row.body.parts.slice(ids.length)) {
    let outcome: SendOutcome;
    try {
      outcome = await provider(ctx, conn, row, part);
    } catch (error) {
      outcome = { ok: false, ambiguous: false, code: null, httpStatus: null, text: (error as Error).message };
    }
    const durationMs = Date.now() - started;
    if (outcome.ok) {
      ids.push(outcome.providerId);
      await repo.addProviderId(ctx.db, row.id, outcome.providerId);
      continue;
    }
    if (outcome.ambiguous) {
      await repo.advanceOutbound(ctx.db, row.id, 'unknown', 2, { errorText: AMBIGUOUS_TEXT });
      await ctx.db.transaction((tx) => recordProviderError(tx, conn, 'timeout', outcome.text, false));
      return done(
        { kind: 'permanent', reason: `ambiguous: ${outcome.text}; not sent again` },
        { durationMs },
      );
    }
    if (outcome.httpStatus === null)
      return done({ kind: 'failed' }, { durationMs, error: outcome.text.slice(0, 300) });
    const error = providerError(outcome.code, outcome.httpStatus);
    await ctx.db.transaction((tx) =>
      recordProviderError(tx, conn, error.code, error.text, error.handling === 'unhealthy'),
    );
    const extra = {
      durationMs,
      statusCode: outcome.httpStatus,
      error: `${error.code}: ${outcome.text}`.slice(0, 300),
    };
    if (error.handling === 'backoff')
      return done(
        {
          kind: 'failed',
          retryAfter: String(Math.ceil(backoffMs(error.code, message.attempts - message.round_start) / 1000)),
        },
        extra,
      );
    if (error.handling === 'unhealthy') return done({ kind: 'held', delayMs: 5 * 60_000 }, extra);
    if (error.optedOut) await repo.setOptOut(ctx.db, conn.id, row.to_number, true);
    await repo.advanceOutbound(ctx.db, row.id, 'refused', 7, {
      errorCode: error.code,
      errorText: error.text,
    });
    return done({ kind: 'permanent', reason: error.text.slice(0, 300) }, extra);
  }
  return done({ kind: 'sent' }, { durationMs: Date.now() - started, statusCode: 200 });
}

function senderOf(ctx: AppContext, kind: string, provider: Provider): OutboxSender {
  return {
    kind,
    maxAttempts: MAX_ATTEMPTS,
    attemptTimeoutMs: ctx.config.messaging.sendTimeoutMs + 5_000,
    send: (message) => attempt(ctx, message, provider),
    async afterAttempt(tx: Queryable, message, next) {
      if (next.kind !== 'sent') return;
      const { outbound_id: id } = message.payload as { outbound_id?: string };
      if (!id) return;
      // Only a row not yet further on (a status webhook may have been quicker) moves.
      const moved = await repo.advanceOutbound(tx, id, 'accepted', 3);
      if (moved) await repo.recordOutboundOk(tx, moved.connection_id);
    },
  };
}

export function createWhatsAppSender(ctx: AppContext): OutboxSender {
  return senderOf(ctx, WHATSAPP_SEND_KIND, viaMeta);
}

export function createTwilioSender(ctx: AppContext): OutboxSender {
  return senderOf(ctx, TWILIO_SEND_KIND, viaTwilio);
}

export function messagingSenders(ctx: AppContext): OutboxSender[] {
  return [createWhatsAppSender(ctx), createTwilioSender(ctx)];
}

const workers = new WeakMap<AppContext, OutboxWorker>();
const drains = new WeakMap<AppContext, { running: Promise<void>; again: boolean }>();

/**
 * Sends the messaging channels' due outbox messages now (after a turn committed) instead of at
 * the worker's next poll. Claims in the database like every worker, so it never races one. One
 * drain runs per instance: a call while it runs makes it look once more and waits for it, so a
 * burst of turns costs a few claims, not one each.
 */
export function sendDueNow(ctx: AppContext): Promise<void> {
  const current = drains.get(ctx);
  if (current) {
    current.again = true;
    return current.running;
  }
  let worker = workers.get(ctx);
  if (!worker) {
    worker = new OutboxWorker({ db: ctx.db, senders: messagingSenders(ctx), batchSize: 50 });
    workers.set(ctx, worker);
  }
  const drain = { again: false, running: Promise.resolve() };
  drain.running = (async () => {
    try {
      do {
        drain.again = false;
        while ((await worker.sendDue()).claimed === worker.batchSize);
      } while (drain.again);
    } catch {
      // The scheduler's worker takes them at its next poll.
    } finally {
      drains.delete(ctx);
    }
  })();
  drains.set(ctx, drain);
  return drain.running;
}
