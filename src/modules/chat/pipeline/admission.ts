/**
 * Admission: the channel's guards (guards.ts: the e-mail loop guard, the widget's daily budget,
 * a messaging customer's opt-out; a refusal is stored once, ../refusals.ts), the idempotency
 * claim, then the specification's checks (bot → active → conversation → hand-over → quota) with
 * the quota reservation, in one statement. The
 * per-minute request limits run before, at the HTTP layer (the route's preParsing hook), where
 * they protect the endpoint before its body is read.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../../shared/context.js';
import {
  claimIdempotencyKey,
  purgeExpiredIdempotencyKeys,
  releaseIdempotencyKey,
  requestFingerprint,
  type IdempotencyClaim,
} from '../idempotency.js';
import { recordCustomerMessage } from '../../conversations/index.js';
import { quotaPeriod, quotaRemaining } from '../quota.js';
import { flushPendingReleases, pendingReleases, releaseReliably } from '../release.js';
import * as repo from '../repository.js';
import { EngineRefusal } from '../../../shared/refusal.js';
import { recordGuardRefusal } from '../refusals.js';
import { runGuards } from './guards.js';
import type { ChatResponse, InboundMessage, StageObserver } from './types.js';

/** What an admitted message holds: the bot, the conversation, the quota reservation and claim. */
export interface Admitted {
  inbound: InboundMessage;
  bot: repo.ChatBot;
  conversationId: string;
  /** True when this message opens the conversation (it is stored only with the reply). */
  isNewConversation: boolean;
  period: string;
  quotaRemaining: number | null;
  reservationId: string;
  claimId: string;
  /** When the reservation's and the claim's leases end (epoch ms). */
  leaseEndsAt: number;
  /** The flow rows and the history, read by the admission statement. */
  rows: repo.TurnRows;
}

/** How many earlier messages of the conversation the model sees. */
export const HISTORY_LIMIT = 10;

export type Admission = { kind: 'replay'; response: ChatResponse } | { kind: 'admitted'; admitted: Admitted };

/**
 * A message's own deadline: two model attempts (timeout and one retry) plus time for the
 * database. A turn still running then is given up (503), so its leases can be bounded.
 */
export function chatDeadlineMs(ctx: AppContext): number {
  return ctx.config.model.timeoutMs * 2 + 30_000;
}

/**
 * The quota reservation and the in-flight idempotency claim outlive the deadline (with a
 * margin for the release itself) before the sweep gives them back or another request takes
 * them over.
 */
function leaseSeconds(ctx: AppContext): number {
  return Math.ceil(chatDeadlineMs(ctx) / 1000) + 30;
}

/**
 * When the service stops waiting for a statement it sends now (the client-side limit of the
 * PostgreSQL pool). Claims and reservations are made only before it, so a frozen server that
 * runs the statement later, when the request has long failed, holds nothing for anyone.
 */
function statementDeadline(ctx: AppContext): Date {
  return new Date(Date.now() + ctx.config.databaseStatementTimeoutMs + 1000);
}

type Observe = StageObserver['stage'];

/**
 * Claims the Idempotency-Key. A claim still held by a request that failed while the database
 * was down waits only for its release: those are run at once, and the key is claimed again.
 */
async function claimKey(
  ctx: AppContext,
  inbound: InboundMessage,
  key: string,
  claim: { claimId: string; leaseSeconds: number },
): Promise<IdempotencyClaim> {
  const attempt = () =>
    claimIdempotencyKey(ctx.db, inbound.tenantId, {
      key,
      requestHash: inbound.requestHash ?? requestFingerprint(inbound.botId, inbound.input),
      leaseSeconds: claim.leaseSeconds,
      claimId: claim.claimId,
      validUntil: statementDeadline(ctx),
    });
  const first = await attempt();
  if (first.kind !== 'in_flight' || pendingReleases() === 0) return first;
  await flushPendingReleases();
  return attempt();
}

/**
 * Runs admission. A replayed key returns the stored response; a refusal throws an
 * EngineRefusal; whatever fails after the claim gives it back.
 */
export async function admit(ctx: AppContext, inbound: InboundMessage, observe: Observe): Promise<Admission> {
  const { tenantId, idempotencyKey } = inbound;
  const claimId = randomUUID();
  const seconds = leaseSeconds(ctx);
  const leaseEndsAt = Date.now() + seconds * 1000;
  await runGuards(ctx, inbound).catch(async (error: unknown) => {
    // A guard's refusal is stored once, here, for every channel; then it goes to the adapter.
    if (error instanceof EngineRefusal && error.guard)
      await recordGuardRefusal(ctx, inbound, error.reason, error.guard);
    throw error;
  });
  if (idempotencyKey) {
    const claim = await observe(
      'admission',
      () => claimKey(ctx, inbound, idempotencyKey, { claimId, leaseSeconds: seconds }),
      'idempotency',
    );
    if (claim.kind === 'replay')
      return { kind: 'replay', response: claim.response as unknown as ChatResponse };
    if (claim.kind === 'mismatch') throw new EngineRefusal('idempotency_mismatch');
    if (claim.kind === 'in_flight') throw new EngineRefusal('idempotency_in_flight');
    // Expired records are cleared now and then, outside the request's critical path.
    if (Math.random() < 0.01) void purgeExpiredIdempotencyKeys(ctx.db, tenantId).catch(() => undefined);
  }
  try {
    const period = quotaPeriod();
    const checked = await observe(
      'admission',
      () =>
        repo.admitChat(
          ctx.db,
          tenantId,
          inbound.botId,
          inbound.input.conversationId,
          period,
          seconds,
          statementDeadline(ctx),
          HISTORY_LIMIT,
          { test: inbound.test === true },
        ),
      'quota',
    );
    switch (checked.kind) {
      case 'bot_not_found':
      case 'bot_disabled':
      case 'conversation_not_found':
        throw new EngineRefusal(checked.kind);
      case 'handed_over': {
        // People hold the conversation: the bot stays silent, the customer's message is kept for them.
        const conversationId = inbound.input.conversationId!;
        const kept = await recordCustomerMessage(
          ctx,
          tenantId,
          conversationId,
          inbound.input.message,
          idempotencyKey ?? null,
        );
        throw new EngineRefusal(
          'handed_over',
          kept ? { kept: { conversationId, messageId: kept.id, createdAt: kept.created_at } } : {},
        );
      }
      case 'quota_exhausted':
        throw new EngineRefusal('quota_exhausted');
    }
    return {
      kind: 'admitted',
      admitted: {
        inbound,
        bot: checked.bot,
        // A new conversation is stored only with the first reply, so a refused message leaves none.
        conversationId: checked.conversationId ?? randomUUID(),
        isNewConversation: checked.conversationId === null,
        period,
        // The test chat's reservation is given back once it is stored: it does not count.
        quotaRemaining: quotaRemaining(
          checked.bot.monthly_message_quota,
          inbound.test ? checked.used - 1 : checked.used,
        ),
        reservationId: checked.reservationId,
        claimId,
        leaseEndsAt,
        rows: checked.turn,
      },
    };
  } catch (error) {
    if (idempotencyKey) {
      await releaseReliably(
        () => releaseIdempotencyKey(ctx.db, tenantId, idempotencyKey, claimId),
        leaseEndsAt,
      );
    }
    throw error;
  }
}

/** A person took the conversation over; the bot answers no more in it. */
export function handedOver(): EngineRefusal {
  return new EngineRefusal('handed_over');
}

/**
 * Gives back the quota reservation and the idempotency claim of a turn that failed; when the
 * database cannot be reached, again in the background until it can (see release.ts).
 */
export async function abandon(ctx: AppContext, admitted: Admitted): Promise<void> {
  const { tenantId, idempotencyKey } = admitted.inbound;
  const { reservationId, claimId, leaseEndsAt } = admitted;
  await Promise.all([
    releaseReliably(() => repo.releaseMessage(ctx.db, reservationId), leaseEndsAt),
    idempotencyKey
      ? releaseReliably(() => releaseIdempotencyKey(ctx.db, tenantId, idempotencyKey, claimId), leaseEndsAt)
      : undefined,
  ]);
}
