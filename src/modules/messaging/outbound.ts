/**
 * What leaves on a messaging connection: a reply rendered for the provider (WhatsApp's
 * interactive messages or text, SMS parts), stored as an outbound row and queued in the durable
 * outbox in the caller's transaction (the bot's and a person's alike: one kind per provider,
 * payload `{outbound_id}`); a person's reply from the inbox checked against the platform's
 * rules first (opt-out, the 24-hour window); and the provider's status webhooks
 * applied to the outbound rows (deduplicated, never backwards).
 */
import type { Queryable } from '../../db/database.js';
import type { ChannelDelivery, OutboundReply } from '../chat/index.js';
import { AppError } from '../../http/errors.js';
import { detectLanguage } from '../../shared/language.js';
import { enqueue } from '../outbox/index.js';
import { enqueueEvent } from '../webhooks/index.js';
import * as repo from './repository.js';
import type { ConnectionRow } from './repository.js';
import { whatsappMessages, numberedList, type ReplyBlock } from './render.js';
import {
  OPTED_OUT_TEXT,
  WINDOW_CLOSED_TEXT,
  providerError,
  splitSms,
  statusRank,
  twilioStatus,
  windowState,
  SMS_MAX_CHARS,
} from './rules.js';
import { chunkText } from './render.js';
import { contentRequestOf } from './twilio-content.js';
import type { ParsedStatus } from './whatsapp.js';

/** The outbox kinds: one sender per provider. */
export const WHATSAPP_SEND_KIND = 'whatsapp.send';
export const TWILIO_SEND_KIND = 'twilio.send';

export function sendKindOf(conn: Pick<ConnectionRow, 'kind'>): string {
  return conn.kind === 'whatsapp_cloud' ? WHATSAPP_SEND_KIND : TWILIO_SEND_KIND;
}

/** The conversation channel of a connection. */
export function channelOf(conn: Pick<ConnectionRow, 'kind'>): 'whatsapp' | 'sms' {
  return conn.kind === 'twilio_sms' ? 'sms' : 'whatsapp';
}

/** Whether the connection's platform has the 24-hour customer-service window. */
export function hasWindow(conn: Pick<ConnectionRow, 'kind'>): boolean {
  return conn.kind === 'whatsapp_cloud' || conn.kind === 'twilio_whatsapp';
}

export interface RenderedBody {
  parts: Record<string, unknown>[];
  block?: ReplyBlock | null;
  numbered?: boolean;
  /** Why a block was shown as a numbered list (the pre-flight's warning). */
  misfit?: string | null;
  /** A template message: sent outside the window. */
  template?: boolean;
  /** The opt-out confirmation: sent although the number opts out with it. */
  opt_out_notice?: boolean;
}

/** A reply (text and at most one block) as the provider's message bodies. */
export function renderBody(
  conn: Pick<ConnectionRow, 'kind'>,
  text: string,
  block: ReplyBlock | null,
  language: string,
): RenderedBody {
  if (conn.kind === 'whatsapp_cloud') {
    const rendered = whatsappMessages(text, block, language);
    return { parts: rendered.parts, block, numbered: rendered.numbered, misfit: rendered.misfit };
  }
  const full = block ? numberedList(text, block, language) : text.trim();
  const bodies = conn.kind === 'twilio_sms' ? splitSms(full) : chunkText(full, SMS_MAX_CHARS);
  // Twilio WhatsApp: buttons and lists as a Content template when they fit (the numbered list
  // goes with it: the fallback when the content cannot be created, and still understood).
  const content = conn.kind === 'twilio_whatsapp' && block ? contentRequestOf(text, block, language) : null;
  if (content && bodies.length === 1)
    return { parts: [{ body: bodies[0], content }], block, numbered: true, misfit: null };
  return { parts: bodies.map((body) => ({ body })), block, numbered: block !== null, misfit: null };
}

/** Stores an outbound message and queues its send (send-once key given by the caller). */
export async function queueOutbound(
  tx: Queryable,
  conn: ConnectionRow,
  o: Omit<repo.NewOutbound, 'tenantId' | 'connectionId' | 'body'> & { body: RenderedBody; key: string },
): Promise<string> {
  const id = await repo.insertOutbound(tx, {
    tenantId: conn.tenant_id,
    connectionId: conn.id,
    conversationId: o.conversationId,
    messageId: o.messageId,
    to: o.to,
    purpose: o.purpose,
    automated: o.automated,
    body: o.body,
  });
  const kind = sendKindOf(conn);
  await enqueue(tx, conn.tenant_id, [
    { kind, idempotencyKey: `${kind}:${o.key}`, payload: { outbound_id: id } },
  ]);
  return id;
}

/** The words a refused message is refused with, as the inbox and the API show them. */
function refusal(text: string, code: 'window_closed' | 'opted_out' | 'connection_gone'): AppError {
  return new AppError(409, 'conflict', text, { details: { code } });
}

/**
 * The delivery of a person's reply from the inbox on a WhatsApp or SMS conversation: refused in
 * words when the number opted out or (WhatsApp) the 24-hour window is closed, otherwise stored
 * and queued like the bot's replies (the provider's outbox kind, payload `{outbound_id}`) in the
 * reply's transaction.
 */
export const personDelivery: ChannelDelivery = {
  async enqueue(tx: Queryable, reply: OutboundReply): Promise<void> {
    const { tenantId, conversationId } = reply;
    const where = await repo.conversationChannel(tx, tenantId, conversationId);
    const conn = where ? await repo.findConnectionById(tx, where.connection_id) : undefined;
    if (!where || !conn || conn.tenant_id !== tenantId)
      throw refusal('Die Verbindung dieses Gesprächs (WhatsApp/SMS) besteht nicht mehr.', 'connection_gone');
    if (await repo.isOptedOut(tx, conn.id, where.from_number)) throw refusal(OPTED_OUT_TEXT, 'opted_out');
    if (hasWindow(conn)) {
      const window = windowState(
        await repo.lastCustomerMessageAt(tx, conn.id, where.from_number),
        new Date(),
      );
      if (!window.open) throw refusal(WINDOW_CLOSED_TEXT, 'window_closed');
    }
    await queueOutbound(tx, conn, {
      conversationId,
      messageId: reply.messageId,
      to: where.from_number,
      purpose: 'person',
      automated: false,
      body: renderBody(conn, reply.text, null, detectLanguage(reply.text)),
      key: `person:${reply.messageId}`,
    });
  },
};

/** A provider error recorded in the connection's health; the unhealthy event once. */
export async function recordProviderError(
  tx: Queryable,
  conn: ConnectionRow,
  code: string,
  text: string,
  unhealthy: boolean,
): Promise<void> {
  const turnedUnhealthy = await repo.recordError(tx, conn.id, code, text, unhealthy);
  if (turnedUnhealthy)
    await enqueueEvent(tx, conn.tenant_id, 'channel.unhealthy', {
      connection_id: conn.id,
      bot_id: conn.bot_id,
      kind: conn.kind,
      code,
      reason: text,
      at: new Date().toISOString(),
    });
}

/**
 * Applies status webhooks: each (message, status) once, the outbound row only forward. A
 * failure's code is kept in words (131047 / 63016: the window; 21610: opted out).
 */
export async function applyStatuses(
  tx: Queryable,
  conn: ConnectionRow,
  statuses: ParsedStatus[],
): Promise<number> {
  let applied = 0;
  for (const s of statuses) {
    const status = conn.kind === 'whatsapp_cloud' ? s.status : twilioStatus(s.status);
    if (!status || statusRank(status) < 0) continue;
    if (!(await repo.recordStatusEvent(tx, conn.id, s.providerId, status, s.errorCode))) continue;
    const row =
      (s.opaque && /^[0-9a-f-]{36}$/i.test(s.opaque) ? await repo.findOutbound(tx, s.opaque) : undefined) ??
      (await repo.outboundByProviderId(tx, conn.id, s.providerId));
    if (!row || row.connection_id !== conn.id) continue;
    let errorText: string | null = null;
    if (status === 'failed' || status === 'undelivered') {
      const error = providerError(s.errorCode, undefined);
      errorText = s.errorCode ? error.text : (s.errorTitle ?? 'Nicht zugestellt.');
      if (error.optedOut) await repo.setOptOut(tx, conn.id, row.to_number, true);
      if (s.errorCode)
        await recordProviderError(tx, conn, error.code, error.text, error.handling === 'unhealthy');
    }
    const moved = await repo.advanceOutbound(tx, row.id, status, statusRank(status), {
      providerIds: [s.providerId],
      errorCode: s.errorCode,
      errorText,
    });
    if (moved) applied += 1;
  }
  return applied;
}
