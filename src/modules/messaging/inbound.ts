/**
 * The messaging channels' inbound adapter: a provider's message (Meta's or Twilio's webhook)
 * becomes the conversation engine's inbound message.
 *
 *   accept   one transaction stores each message once, unique per (connection, provider id);
 *            the webhook is answered right after it commits (a retried webhook stores nothing)
 *   wait     a customer's messages within the connection's quiet window (default 1.5 s, at most
 *            6 s after the first) wait to be answered as one turn
 *   turn     the waiting messages are claimed (row locks decide a race between instances),
 *            joined in the provider's order, and handed to the engine with an idempotency key of
 *            the turn; the reply's outbound row, its outbox message and the messages' new state
 *            are written in the engine's transaction, so the reply leaves exactly once
 *
 * A stopped instance's waiting messages are answered by the sweep (`sweepWaiting`).
 */
import { randomUUID } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import type { Queryable } from '../../db/database.js';
import { AppError } from '../../http/errors.js';
import { EngineRefusal } from '../../shared/refusal.js';
import { detectLanguage } from '../../shared/language.js';
import { converse, type ChannelDelivery, type OutboundReply } from '../chat/index.js';
import { findOrCreateContactBySender } from '../contacts/index.js';
import * as repo from './repository.js';
import type { ConnectionRow, InboundRow } from './repository.js';
import { channelOf, queueOutbound, renderBody } from './outbound.js';
import { choiceFromText, type ReplyBlock } from './render.js';
import {
  OPT_IN_CONFIRMATION,
  burstDelayMs,
  isOptIn,
  isOptOut,
  optOutConfirmation,
  quietWindowMs,
} from './rules.js';
import { sendDueNow } from './sender.js';
import { transcribeVoiceNote, transcriptionConfigured } from './transcribe.js';
import type { ParsedInbound } from './whatsapp.js';

/** Told to a customer who sent a picture, a voice note or a file without text. */
export function onlyTextNotice(language: string, voice: boolean): string {
  if (language === 'en')
    return voice
      ? 'Sorry, I cannot listen to voice messages. Please write your question as text.'
      : 'Sorry, I can only read text. Please write your question as a message.';
  return voice
    ? 'Entschuldigung, Sprachnachrichten kann ich nicht anhören. Bitte schreiben Sie Ihre Frage als Text.'
    : 'Entschuldigung, ich kann nur Text lesen. Bitte schreiben Sie Ihre Frage als Nachricht.';
}

export const CHOICE_EXPIRED_TEXT =
  'Diese Auswahl gehört zu einer älteren Nachricht und ist nicht mehr gültig. Bitte wählen Sie in der letzten Nachricht oder schreiben Sie Ihr Anliegen.';

/** What the customer's message asks of the service before any turn: opt-out, opt-in, a notice. */
type Special =
  | { kind: 'opt_out'; reply: string }
  | { kind: 'opt_in'; reply: string }
  | { kind: 'notice'; reason: string; reply: string }
  | { kind: 'silent'; reason: string }
  | null;

function special(conn: ConnectionRow, m: ParsedInbound, transcribes: boolean): Special {
  const twilio = conn.kind !== 'whatsapp_cloud';
  // A voice note waits for its turn like text when it can be transcribed there.
  if (m.kind === 'voice' && m.media && transcribes) return null;
  if (m.kind === 'reaction') return { kind: 'silent', reason: 'reaction' };
  if (twilio && m.kind === 'text' && isOptOut(m.text))
    return { kind: 'opt_out', reply: optOutConfirmation(m.text) };
  if (twilio && m.kind === 'text' && isOptIn(m.text)) return { kind: 'opt_in', reply: OPT_IN_CONFIRMATION };
  if (m.kind === 'media' || m.kind === 'voice' || m.kind === 'unsupported')
    return {
      kind: 'notice',
      reason: `${m.kind}_without_text`,
      reply: onlyTextNotice('de', m.kind === 'voice'),
    };
  return null;
}

/**
 * Stores a webhook's messages once, in one transaction with what they ask for at once (an
 * opt-out and its confirmation, the notice that only text is read). Returns the messages that
 * wait for a turn (only those this call stored).
 */
export async function acceptMessages(
  ctx: AppContext,
  conn: ConnectionRow,
  messages: ParsedInbound[],
): Promise<{ waiting: InboundRow[]; queued: boolean }> {
  if (messages.length === 0) return { waiting: [], queued: false };
  const transcribes = transcriptionConfigured(ctx.config.messaging);
  const specials = new Map(messages.map((m) => [m.providerId, special(conn, m, transcribes)]));
  // Plain messages are one INSERT, atomic on its own; what asks for more gets a transaction.
  const needsTransaction = [...specials.values()].some((s) => s !== null && s.kind !== 'silent');
  const store = async (tx: Queryable) => {
    let queued = false;
    const stored = await repo.insertInbound(
      tx,
      messages.map((m) => {
        const s = specials.get(m.providerId);
        return {
          tenantId: conn.tenant_id,
          connectionId: conn.id,
          providerMessageId: m.providerId,
          from: m.from,
          kind: s?.kind === 'opt_out' || s?.kind === 'opt_in' ? s.kind : m.kind,
          text: m.text,
          choice: m.choice,
          contextId: m.contextId,
          media: m.media ?? null,
          providerTs: m.ts,
          status: s ? 'skipped' : 'received',
          skipReason: s ? (s.kind === 'opt_out' || s.kind === 'opt_in' ? s.kind : s.reason) : null,
        };
      }),
    );
    for (const row of stored) {
      const s = specials.get(row.provider_message_id);
      if (!s || s.kind === 'silent') continue;
      const conversationId = await repo.openConversation(tx, conn.tenant_id, conn.id, row.from_number);
      if (s.kind === 'opt_in') await repo.setOptOut(tx, conn.id, row.from_number, false);
      // The confirmation goes out before the block takes effect.
      await queueOutbound(tx, conn, {
        conversationId,
        messageId: null,
        to: row.from_number,
        purpose: 'notice',
        automated: true,
        body: { ...renderBody(conn, s.reply, null, 'de'), opt_out_notice: s.kind === 'opt_out' },
        key: `notice:${row.id}`,
      });
      if (s.kind === 'opt_out') await repo.setOptOut(tx, conn.id, row.from_number, true);
      queued = true;
    }
    return { waiting: stored.filter((r) => r.status === 'received'), queued, stored: stored.length };
  };
  const accepted = needsTransaction ? await ctx.db.transaction(store) : await store(ctx.db);
  // The connection's row is not locked inside the transaction (see recordInboundAt).
  if (accepted.stored > 0) await repo.recordInboundAt(ctx.db, conn.id);
  return { waiting: accepted.waiting, queued: accepted.queued };
}

// ---- bursts: one timer per customer and connection on this instance ----

const timers = new WeakMap<AppContext, Map<string, NodeJS.Timeout>>();
const logs = new WeakMap<AppContext, Pick<FastifyBaseLogger, 'warn'>>();

/** Where a turn that fails in the background is logged. */
export function setTurnLog(ctx: AppContext, log: Pick<FastifyBaseLogger, 'warn'>): void {
  logs.set(ctx, log);
}

/** Answers a customer's waiting messages once the quiet window has passed. */
export function scheduleTurn(ctx: AppContext, conn: ConnectionRow, from: string, delayMs: number): void {
  let map = timers.get(ctx);
  if (!map) timers.set(ctx, (map = new Map()));
  const key = `${conn.id}|${from}`;
  clearTimeout(map.get(key));
  const timer = setTimeout(() => {
    map.delete(key);
    void limitedTurn(ctx, conn.id, from).catch((error: unknown) =>
      logs
        .get(ctx)
        ?.warn({ err: error, connection: conn.id }, 'messaging turn failed; the sweep tries again'),
    );
  }, delayMs);
  timer.unref?.();
  map.set(key, timer);
}

const turnLimits = new WeakMap<AppContext, LimitFunction>();

/**
 * A turn when one of the instance's `MESSAGING_TURN_CONCURRENCY` places is free; turns wait in
 * the order their quiet windows ended. A burst of webhooks then queues turns, not statements, so
 * the database keeps connections for the webhooks' own inserts.
 */
function limitedTurn(ctx: AppContext, connectionId: string, from: string): Promise<void> {
  const places = ctx.config.messaging.turnConcurrency;
  let limit = turnLimits.get(ctx);
  if (!limit) turnLimits.set(ctx, (limit = pLimit(places)));
  else if (limit.concurrency !== places) limit.concurrency = places;
  return limit(() => runTurn(ctx, connectionId, from));
}

/** After a webhook's commit: the turns of the customers who wrote. */
export function afterAccept(
  ctx: AppContext,
  conn: ConnectionRow,
  accepted: { waiting: InboundRow[]; queued: boolean },
): void {
  const quiet = quietWindowMs(conn.settings.quiet_window_ms);
  for (const from of new Set(accepted.waiting.map((r) => r.from_number)))
    scheduleTurn(ctx, conn, from, quiet);
  // Notices and confirmations queued with the messages leave now.
  if (accepted.queued) void sendDueNow(ctx);
}

/** The engine's refusals this adapter tells apart (kept in one place: the engine's codes may change). */
function refusalOf(
  error: unknown,
): 'handed_over' | 'bot_disabled' | 'quota_exhausted' | 'opted_out' | 'retry' | 'failed' {
  if (!(error instanceof EngineRefusal)) {
    return error instanceof AppError && error.statusCode < 500 ? 'failed' : 'retry';
  }
  switch (error.reason) {
    // `opted_out`: the opt-out guard (guards.ts); the turn is skipped with that reason.
    case 'handed_over':
    case 'bot_disabled':
    case 'quota_exhausted':
    case 'opted_out':
      return error.reason;
    case 'idempotency_in_flight':
    case 'model_unavailable':
      return 'retry';
    case 'bot_not_found':
    case 'conversation_not_found':
    case 'idempotency_mismatch':
    case 'budget_exhausted':
    case 'loop_guarded':
      return 'failed';
  }
}

/** A notice to the customer instead of a turn (queued and sent), the turn settled as skipped. */
async function noticeInsteadOfTurn(
  ctx: AppContext,
  conn: ConnectionRow,
  turn: { turnId: string; conversationId: string | null; from: string },
  text: string,
  language: string,
  reason: string,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await queueOutbound(tx, conn, {
      conversationId: turn.conversationId,
      messageId: null,
      to: turn.from,
      purpose: 'notice',
      automated: true,
      body: renderBody(conn, text, null, language),
      key: `notice:${turn.turnId}`,
    });
    await repo.settleTurn(tx, turn.turnId, 'skipped', turn.conversationId, reason);
  });
  await sendDueNow(ctx);
}

/** The claimed voice notes as text (kept on their rows); one that cannot be read stays empty. */
async function transcribeClaimed(ctx: AppContext, conn: ConnectionRow, rows: InboundRow[]): Promise<void> {
  for (const row of rows) {
    if (row.kind !== 'voice' || row.text.trim() || !row.media) continue;
    const text = await transcribeVoiceNote(ctx, conn, row.media);
    if (!text) continue;
    row.text = text;
    await repo.setInboundText(ctx.db, row.id, text);
  }
}

/** The block a numbered reply or a tap refers to: the latest outbound message's. */
async function resolveChoice(
  db: Queryable,
  conn: ConnectionRow,
  rows: InboundRow[],
): Promise<{ choice?: { blockId: string; itemId: string }; expired?: boolean }> {
  const last = rows[rows.length - 1]!;
  const latest = await repo.latestBlockOutbound(db, conn.id, last.from_number);
  if (last.choice) {
    // A tap on an older message than the latest one: its block is no longer the current one.
    const latestBlock = latest?.body.block as ReplyBlock | null | undefined;
    if (last.context_id && latest && !latest.provider_message_ids.includes(last.context_id)) {
      if (!latestBlock || latestBlock.id !== last.choice.block_id) return { expired: true };
    }
    return { choice: { blockId: last.choice.block_id, itemId: last.choice.item_id } };
  }
  if (rows.length === 1 && latest?.body.numbered && latest.body.block) {
    const block = latest.body.block as ReplyBlock;
    const item = choiceFromText(last.text, block);
    if (item) return { choice: { blockId: block.id, itemId: item.id } };
  }
  return {};
}

/** The engine's output port for a messaging turn: outbound row, outbox message, settled inbound rows. */
function channelDelivery(
  conn: ConnectionRow,
  from: string,
  turnId: string,
  language: string,
): ChannelDelivery {
  return {
    async enqueue(tx: Queryable, reply: OutboundReply) {
      const block = (reply.blocks[0] as ReplyBlock | undefined) ?? null;
      await queueOutbound(tx, conn, {
        conversationId: reply.conversationId,
        messageId: null,
        to: from,
        purpose: 'reply',
        automated: true,
        body: renderBody(conn, reply.text, block, language),
        key: `turn:${turnId}`,
      });
      await repo.settleTurn(tx, turnId, 'answered', reply.conversationId);
    },
  };
}

/**
 * Answers one customer's waiting messages as one turn, unless the quiet window is still
 * running (then it waits again). Safe to call any number of times, on any instance.
 */
export async function runTurn(ctx: AppContext, connectionId: string, from: string): Promise<void> {
  const conn = await repo.findConnectionById(ctx.db, connectionId);
  if (!conn || !conn.is_active) return;
  const waiting = await repo.pendingOf(ctx.db, conn.id, from);
  if (waiting.length === 0) return;
  const arrivals = waiting.map((r) => r.received_at.getTime());
  const delay = burstDelayMs(
    Math.min(...arrivals),
    Math.max(...arrivals),
    Date.now(),
    quietWindowMs(conn.settings.quiet_window_ms),
  );
  if (delay > 0) {
    scheduleTurn(ctx, conn, from, delay);
    return;
  }
  const turnId = randomUUID();
  // One statement, atomic on its own: rows locked by another instance's claim are skipped.
  const claimed = await repo.claimPending(ctx.db, conn.id, from, turnId);
  if (claimed.length === 0) return;
  // The provider's order, not the order of arrival.
  claimed.sort(
    (a, b) =>
      a.provider_ts.getTime() - b.provider_ts.getTime() || a.received_at.getTime() - b.received_at.getTime(),
  );
  const conversationId = await repo.openConversation(ctx.db, conn.tenant_id, conn.id, from);
  // An opted-out customer's voice notes never go to the transcription provider, nor get the
  // only-text notice: the opt-out guard refuses the turn anyway (read only when a note waits).
  const unread = claimed.some((r) => r.kind === 'voice' && !r.text.trim() && r.media);
  const optedOut = unread && (await repo.isOptedOut(ctx.db, conn.id, from));
  if (!optedOut) await transcribeClaimed(ctx, conn, claimed);
  if (!optedOut && claimed.every((r) => !r.text.trim())) {
    // Only voice notes that could not be read: the customer is told, as without transcription.
    return noticeInsteadOfTurn(
      ctx,
      conn,
      { turnId, conversationId, from },
      onlyTextNotice('de', true),
      'de',
      'voice_without_text',
    );
  }
  const message = claimed
    .map((r) => r.text.trim())
    .filter(Boolean)
    .join('\n')
    .slice(0, 10_000);
  const language = detectLanguage(message);
  const resolved = await resolveChoice(ctx.db, conn, claimed);
  if (resolved.expired)
    return noticeInsteadOfTurn(
      ctx,
      conn,
      { turnId, conversationId, from },
      CHOICE_EXPIRED_TEXT,
      language,
      'choice_expired',
    );
  const channel = channelOf(conn);
  // The person behind the number: one contact per E.164 number, whatever channel they use.
  await findOrCreateContactBySender(ctx.db, conn.tenant_id, { senderId: from, channel });
  try {
    await converse(
      ctx,
      {
        tenantId: conn.tenant_id,
        botId: conn.bot_id,
        input: {
          message: message || '…',
          senderId: from,
          channel,
          conversationId,
          metadata: { messaging: { connection_id: conn.id, kind: conn.kind } },
          ...(resolved.choice ? { choice: resolved.choice } : {}),
        },
        idempotencyKey: `messaging:${turnId}`,
        // The opt-out guard (guards.ts) reads them.
        facts: { messaging: { connectionId: conn.id, from } },
      },
      { delivery: channelDelivery(conn, from, turnId, language) },
    );
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal === 'retry') {
      // Back to waiting: the sweep answers them when the engine or the database is back.
      await repo.settleTurn(ctx.db, turnId, 'received', null);
      throw error;
    }
    const status = refusal === 'handed_over' ? 'handed_over' : refusal === 'failed' ? 'failed' : 'skipped';
    await repo.settleTurn(
      ctx.db,
      turnId,
      status,
      conversationId,
      refusal !== 'failed'
        ? refusal
        : error instanceof EngineRefusal
          ? error.reason
          : (error as AppError).error,
    );
    return;
  }
  await sendDueNow(ctx);
}

/**
 * The sweep (a background job): turns claimed by an instance that stopped are given back, and
 * customers whose messages still wait (their instance stopped before the quiet window ended)
 * are answered.
 */
export async function sweepWaiting(ctx: AppContext): Promise<number> {
  await repo.releaseStaleTurns(ctx.db, 300);
  const waiting = await repo.waitingCustomers(ctx.db, 10_000);
  for (const w of waiting) await limitedTurn(ctx, w.connection_id, w.from_number);
  return waiting.length;
}
