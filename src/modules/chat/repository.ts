import type { Queryable } from '../../db/database.js';
import { genericPlan, queryOne } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';
import type { StatementNotify } from '../../coordination/index.js';
import type { BotRow } from '../bots/index.js';
import { exchangeStatement, MARK_TEST_CONVERSATION, type ConversationRow } from '../conversations/index.js';
import type { ModelMessage } from '../models/index.js';
import type { ChatChannel } from './request.js';

export interface ChatBot extends BotRow {
  tenant_industry_code: string | null;
  /** Effective monthly quota of the tenant (its override, else its plan's); null = unlimited. */
  monthly_message_quota: number | null;
  /** Version of the tenant's typo vocabulary: keys the knowledge search's word cache. */
  knowledge_vocabulary_version: number;
  /** Version of the tenant's events: keys the cached list of events the chat offers. */
  events_version: number;
}

/** What the checks before the model found, in the specification's order. */
export type Admission =
  | { kind: 'bot_not_found' }
  | { kind: 'bot_disabled' }
  | { kind: 'conversation_not_found' }
  | { kind: 'handed_over' }
  | { kind: 'quota_exhausted' }
  /** Admitted: one message of the month's quota is reserved; `used` counts it. */
  | {
      kind: 'admitted';
      bot: ChatBot;
      conversationId: string | null;
      used: number;
      reservationId: string;
      turn: TurnRows;
    };

/**
 * What the turn reads besides the checks, fetched by the same statement: the bot's flow (its
 * active blocks and its steps, as rows for the flow stage), the conversation's flow state and
 * its last messages. None of them costs a round trip of its own.
 */
export interface TurnRows {
  flowBlocks: unknown[];
  flowSteps: unknown[];
  flowState: unknown;
  /** The last user/assistant messages of a named conversation, oldest first. */
  history: ModelMessage[];
  /** Whether an active webhook endpoint of the tenant subscribes to `escalation.triggered`. */
  escalationSubscribed: boolean;
}

interface AdmissionRow extends ChatBot {
  flow_blocks: unknown[];
  flow_steps: unknown[];
  flow_state: unknown;
  history: ModelMessage[];
  escalation_subscribed: boolean;
  conversation_id: string | null;
  conversation_status: ConversationRow['status'] | null;
  messages_used: number | null;
  reservation_id: string | null;
  commit_mode: string;
}

/*
 * One statement for every check before the model (the hot path): the bot with what the chat
 * needs of its tenant, the conversation when one is named, and — only when both allow it — the
 * atomic reservation of one message of the month's quota. The conditional upsert lets exactly
 * `quota` requests through however many race, on any number of instances; unlimited tenants
 * (quota null) are counted too. $4 is the conversation id (null when none is named or it is
 * malformed), $5 whether one was named, $6 the reservation's lease in seconds, $7 when the caller
 * stops waiting for the answer, $9 whether a draft is admitted (the dashboard's test chat): a
 * statement that a frozen server runs only later, after the
 * caller gave up, reserves nothing (it would be held until its lease ran out).
 *
 * The statement commits asynchronously (synchronous_commit off for its own transaction only):
 * the tenant's counter row stays locked until commit, and waiting for the WAL flush there made
 * every request of a tenant queue behind the previous one's disk write. Nothing durable is
 * lost: the stored exchange commits synchronously afterwards, and its flush covers all earlier
 * WAL, this reservation included; only reservations of requests still in flight when the
 * database crashes can vanish, and those requests were never answered.
 */
const ADMIT = genericPlan(`WITH bot AS (
    SELECT b.*, t.industry_code AS tenant_industry_code, t.knowledge_vocabulary_version, t.events_version,
           coalesce(t.message_quota_override, p.monthly_message_quota) AS monthly_message_quota
    FROM bots b
    JOIN tenants t ON t.id = b.tenant_id
    LEFT JOIN subscriptions s ON s.tenant_id = t.id
    LEFT JOIN plans p ON p.id = s.plan_id
    WHERE b.tenant_id = $1 AND b.id = $2
  ),
  conversation AS (
    SELECT c.id, c.status FROM conversations c
    WHERE c.tenant_id = $1 AND c.id = $4::uuid AND c.bot_id = $2
  ),
  reserved AS (
    INSERT INTO usage_counters AS u (tenant_id, period, messages_used)
    SELECT $1, $3::date, 1 FROM bot
    WHERE (bot.is_active OR ($9::boolean AND bot.status = 'draft')) AND bot.status <> 'disabled'
      AND clock_timestamp() <= $7
      AND (NOT $5::boolean OR EXISTS (SELECT 1 FROM conversation WHERE status <> 'handed_over'))
      AND coalesce(bot.monthly_message_quota > 0, true)
    ON CONFLICT (tenant_id, period) DO UPDATE SET messages_used = u.messages_used + 1
    WHERE coalesce(u.messages_used < (SELECT monthly_message_quota FROM bot), true)
    RETURNING messages_used
  ),
  reservation AS (
    INSERT INTO chat_reservations (tenant_id, period, lease_expires_at)
    SELECT $1, $3::date, now() + make_interval(secs => $6) FROM reserved
    RETURNING id
  )
  SELECT bot.*, conversation.id AS conversation_id, conversation.status AS conversation_status,
         coalesce((SELECT json_agg(fb ORDER BY fb.created_at, fb.id) FROM interactive_blocks fb
                   WHERE fb.tenant_id = $1 AND fb.bot_id = $2 AND fb.is_active), '[]'::json) AS flow_blocks,
         coalesce((SELECT json_agg(fs ORDER BY fs.step_order) FROM flow_steps fs
                   WHERE fs.tenant_id = $1 AND fs.bot_id = $2), '[]'::json) AS flow_steps,
         (SELECT row_to_json(f) FROM conversation_flow_states f
          WHERE f.tenant_id = $1 AND f.conversation_id = conversation.id) AS flow_state,
         coalesce((SELECT json_agg(json_build_object('role', h.role, 'content', h.content) ORDER BY h.seq)
                   FROM (SELECT m.seq, m.role, m.content FROM messages m
                         WHERE m.tenant_id = $1 AND m.conversation_id = conversation.id
                           AND m.role IN ('user', 'assistant')
                         ORDER BY m.seq DESC LIMIT $8) h), '[]'::json) AS history,
         EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.tenant_id = $1 AND w.is_active
                 AND 'escalation.triggered' = ANY(w.event_types)) AS escalation_subscribed,
         (SELECT messages_used FROM reserved) AS messages_used,
         (SELECT id FROM reservation) AS reservation_id,
         set_config('synchronous_commit', 'off', true) AS commit_mode
  FROM bot LEFT JOIN conversation ON true`);

/**
 * Runs the checks of the specification in order — bot of this tenant, active, conversation of
 * this bot, not handed over, quota — and reserves one message when all pass, in one round trip.
 * Another tenant's bot and a malformed id are indistinguishable from a missing bot; a malformed
 * conversation id from a missing conversation.
 */
export async function admitChat(
  db: Queryable,
  tenantId: string,
  botId: string,
  conversationId: string | null,
  period: string,
  leaseSeconds: number,
  validUntil: Date,
  historyLimit = 0,
  options: { test?: boolean } = {},
): Promise<Admission> {
  if (!isUuid(botId)) return { kind: 'bot_not_found' };
  const named = conversationId !== null;
  const row = await queryOne<AdmissionRow>(db, ADMIT, [
    tenantId,
    botId,
    period,
    named && isUuid(conversationId) ? conversationId : null,
    named,
    leaseSeconds,
    validUntil,
    historyLimit,
    options.test === true,
  ]);
  if (!row) return { kind: 'bot_not_found' };
  const {
    conversation_id,
    conversation_status,
    messages_used,
    reservation_id,
    commit_mode: _commitMode,
    flow_blocks,
    flow_steps,
    flow_state,
    history,
    escalation_subscribed,
    ...bot
  } = row;
  // A draft (never activated) is tried in the dashboard's test chat before it goes live.
  const tryingDraft = options.test === true && bot.status === 'draft';
  if ((!bot.is_active && !tryingDraft) || bot.status === 'disabled') return { kind: 'bot_disabled' };
  if (named && conversation_id === null) return { kind: 'conversation_not_found' };
  if (conversation_status === 'handed_over') return { kind: 'handed_over' };
  if (messages_used === null || reservation_id === null) return { kind: 'quota_exhausted' };
  return {
    kind: 'admitted',
    bot,
    conversationId: conversation_id,
    used: messages_used,
    reservationId: reservation_id,
    turn: {
      flowBlocks: flow_blocks,
      flowSteps: flow_steps,
      flowState: flow_state,
      history,
      escalationSubscribed: escalation_subscribed,
    },
  };
}

/**
 * Gives back the reservation of a request that failed before it was answered: the row and the
 * counted message go in one statement, so running it again (a retry after an outage, the
 * sweep) gives nothing back twice.
 */
export async function releaseMessage(db: Queryable, reservationId: string): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM chat_reservations WHERE id = $1 RETURNING tenant_id, period)
     UPDATE usage_counters u SET messages_used = u.messages_used - 1
     FROM gone WHERE u.tenant_id = gone.tenant_id AND u.period = gone.period AND u.messages_used > 0`,
    [reservationId],
  );
}

/**
 * Gives back every reservation whose lease ran out: its request can no longer be answered
 * (its process died, or its release could not reach the database). Returns how many.
 */
export async function sweepExpiredReservations(db: Queryable): Promise<number> {
  const rows = await db.query<{ released: number }>(
    `WITH gone AS (
       DELETE FROM chat_reservations WHERE lease_expires_at <= now() RETURNING tenant_id, period
     ),
     per_counter AS (SELECT tenant_id, period, count(*)::int AS n FROM gone GROUP BY tenant_id, period),
     updated AS (
       UPDATE usage_counters u SET messages_used = greatest(u.messages_used - p.n, 0)
       FROM per_counter p WHERE u.tenant_id = p.tenant_id AND u.period = p.period
       RETURNING 1
     )
     SELECT coalesce(sum(n), 0)::int AS released FROM per_counter`,
  );
  return rows[0]?.released ?? 0;
}

export interface StoredMessage {
  content: string;
  tokens: number;
}

/** What a bot reply carried, kept with it for the conversation review. */
export interface ReplyDetails {
  sources: unknown[];
  actions: unknown[];
  blocks: unknown[];
}

export interface Exchange {
  conversationId: string;
  /** Set when the request opens the conversation: it is inserted with this exchange. */
  newConversation: {
    channel: ChatChannel;
    senderId: string | null;
    metadata: Record<string, unknown>;
  } | null;
  botId: string;
  channel: ChatChannel;
  model: string;
  knowledgeUsed: boolean;
  question: StoredMessage;
  answer: StoredMessage & { details: ReplyDetails };
  /** Idempotency record completed with `response` in the same statement. */
  idempotency: { key: string; response: object; ttlHours: number } | null;
  /** The request's quota reservation, settled by this statement. */
  reservation: { id: string; period: string } | null;
  /**
   * The turn hands the conversation over to people: the same statement marks it waiting for a
   * person (as conversations/lifecycle's escalation does), at `at`.
   */
  handover: { escalationReason: string; reason: string; question: string } | null;
  /** Broadcasts sent by this statement when it stores the exchange (PostgreSQL's fan-out). */
  notify: StatementNotify | null;
}

/**
 * What the chat settles in the exchange statement (conversations' exchangeStatement), each
 * only when the exchange was written: the idempotency record gets its response, the request's
 * quota reservation is settled.
 */
const SETTLE = `idempotency AS (
       UPDATE chat_idempotency_keys
       SET status = 'completed', response = :idempotency_response,
           expires_at = now() + make_interval(hours => :idempotency_ttl_hours)
       WHERE tenant_id = :tenant_id AND idempotency_key = :idempotency_key
         AND EXISTS (SELECT 1 FROM conversation)
       RETURNING 1
     ),
     reservation AS (
       DELETE FROM chat_reservations WHERE id = :reservation_id::uuid AND EXISTS (SELECT 1 FROM conversation)
       RETURNING 1
     ),
     -- The lease ran out before the answer was stored and the sweep gave the message back:
     -- the stored exchange counts it again.
     recounted AS (
       UPDATE usage_counters SET messages_used = messages_used + 1
       WHERE tenant_id = :tenant_id AND period = :period::date AND :reservation_id::uuid IS NOT NULL
         AND EXISTS (SELECT 1 FROM conversation) AND NOT EXISTS (SELECT 1 FROM reservation)
       RETURNING 1
     )`;
interface SettleParams {
  idempotency_key: string | null;
  /** The response kept for a repeated request (JSON text). */
  idempotency_response: string | null;
  idempotency_ttl_hours: number;
  reservation_id: string | null;
  period: string | null;
}
const STORE_NEW = exchangeStatement<SettleParams>('new', SETTLE);
const STORE_CONTINUED = exchangeStatement<SettleParams>('continued', SETTLE);
genericPlan(STORE_NEW.text);
genericPlan(STORE_CONTINUED.text);

/**
 * Stores a question and its answer in ONE statement (see conversations' exchangeStatement):
 * the conversation (new or continued), both messages (question first: seq keeps the order),
 * the idempotency record and the quota reservation. Returns the time it was stored at (the
 * database's), or null, having written nothing, when a person took the conversation over in the
 * meantime.
 */
export async function storeExchange(
  db: Queryable,
  tenantId: string,
  exchange: Exchange,
): Promise<{ at: Date } | null> {
  const fresh = exchange.newConversation;
  const statement = fresh ? STORE_NEW : STORE_CONTINUED;
  const rows = await db.query<{ stored: number; at: Date }>(
    statement.text,
    statement.values({
      tenant_id: tenantId,
      conversation_id: exchange.conversationId,
      bot_id: exchange.botId,
      channel: exchange.channel,
      model: exchange.model,
      knowledge_used: exchange.knowledgeUsed,
      question: exchange.question.content,
      question_tokens: exchange.question.tokens,
      answer: exchange.answer.content,
      answer_tokens: exchange.answer.tokens,
      sources: JSON.stringify(exchange.answer.details.sources),
      actions: JSON.stringify(exchange.answer.details.actions),
      blocks: JSON.stringify(exchange.answer.details.blocks),
      escalation_reason: exchange.handover?.escalationReason ?? null,
      handover_reason: exchange.handover?.reason ?? null,
      handover_question: exchange.handover?.question ?? null,
      ...(fresh
        ? { new_channel: fresh.channel, sender_id: fresh.senderId, metadata: JSON.stringify(fresh.metadata) }
        : {}),
      notify_channel: exchange.notify?.channel ?? null,
      notify_payloads: exchange.notify?.payloads ?? [],
      idempotency_key: exchange.idempotency?.key ?? null,
      idempotency_response: exchange.idempotency ? JSON.stringify(exchange.idempotency.response) : null,
      idempotency_ttl_hours: exchange.idempotency?.ttlHours ?? 0,
      reservation_id: exchange.reservation?.id ?? null,
      period: exchange.reservation?.period ?? null,
    }),
  );
  return rows[0]?.stored === 1 ? { at: rows[0].at } : null;
}

/**
 * A turn of the dashboard's test chat, once stored: a new conversation is marked a test (kept
 * apart from customers' in the list), and the message the turn reserved is given back to the
 * month's quota.
 */
export async function settleTestTurn(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  options: { isNew: boolean; period: string },
): Promise<void> {
  await db.query(
    `WITH marked AS (${MARK_TEST_CONVERSATION})
     UPDATE usage_counters SET messages_used = greatest(messages_used - 1, 0)
     WHERE tenant_id = $1 AND period = $3::date`,
    [tenantId, conversationId, options.period, options.isNew],
  );
}
