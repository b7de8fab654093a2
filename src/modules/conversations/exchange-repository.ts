/**
 * The exchange statement: a question and its answer stored in ONE statement, which PostgreSQL
 * runs atomically (one round trip on the chat's hot path instead of a transaction of five).
 * The conversation (new or continued) and both messages are this module's rows; the chat adds,
 * as `settle`, the parts that settle its own rows (idempotency record, quota reservation) in the
 * same statement. Every part after the conversation writes only when the conversation was
 * written: a continued conversation a person took over in the meantime is not touched, and
 * then nothing is. Parameters are named (`:tenant_id`); db/named.ts numbers them.
 */
import { named, type NamedStatement } from '../../db/named.js';

/** The parameters of the exchange; `null` where the turn has none (no hand-over, no broadcast). */
export interface ExchangeParams {
  tenant_id: string;
  conversation_id: string;
  bot_id: string;
  channel: string;
  model: string;
  knowledge_used: boolean;
  question: string;
  question_tokens: number;
  answer: string;
  answer_tokens: number;
  /** The reply's sources, actions and blocks (JSON texts). */
  sources: string;
  actions: string;
  blocks: string;
  /**
   * The hand-over of this turn: all three null for none. Its time is the database's, the same
   * clock (and transaction) as the messages' own times.
   */
  escalation_reason: string | null;
  handover_reason: string | null;
  handover_question: string | null;
  /** A new conversation's channel, sender and metadata (JSON text); only the `new` variant names them. */
  new_channel?: string;
  sender_id?: string | null;
  metadata?: string;
  /** The broadcasts sent when the exchange is stored (PostgreSQL's fan-out). */
  notify_channel: string | null;
  notify_payloads: string[];
}

const NEW_CONVERSATION = `INSERT INTO conversations
    (id, tenant_id, bot_id, channel, sender_id, metadata, message_count, last_message_at,
     status, escalated_at, escalation_reason, handover_reason, handover_at, handover_question)
  VALUES (:conversation_id, :tenant_id, :bot_id, :new_channel, :sender_id, :metadata, 2, now(),
     CASE WHEN :handover_reason::text IS NULL THEN 'active' ELSE 'handed_over' END,
     CASE WHEN :handover_reason::text IS NULL THEN NULL ELSE now() END, :escalation_reason::text,
     :handover_reason::text, CASE WHEN :handover_reason::text IS NULL THEN NULL ELSE now() END,
     :handover_question::text)
  RETURNING id`;

// An ended conversation that gets a new message is active again; one a person took over is
// not touched, so nothing below is written either.
const CONTINUED_CONVERSATION = `UPDATE conversations
  SET message_count = message_count + 2, last_message_at = now(), updated_at = now(),
      status = CASE WHEN :handover_reason::text IS NULL THEN 'active' ELSE 'handed_over' END,
      ended_at = CASE WHEN status = 'ended' THEN NULL ELSE ended_at END,
      escalated_at = CASE WHEN :handover_reason::text IS NULL THEN escalated_at ELSE now() END,
      escalation_reason = CASE WHEN :handover_reason::text IS NULL THEN escalation_reason
                               ELSE :escalation_reason::text END,
      assigned_user_id = CASE WHEN :handover_reason::text IS NULL THEN assigned_user_id END,
      handover_reason = coalesce(:handover_reason::text, handover_reason),
      handover_at = CASE WHEN :handover_reason::text IS NULL THEN handover_at ELSE now() END,
      handover_question = CASE WHEN :handover_reason::text IS NULL THEN handover_question
                               ELSE :handover_question::text END
  WHERE tenant_id = :tenant_id AND id = :conversation_id AND status <> 'handed_over'
  RETURNING id`;

/**
 * The statement for a new or a continued conversation. `settle` holds further WITH parts
 * (comma-separated, no trailing comma) that may read `conversation` and use their own names.
 * Returns `stored` (1 when the exchange was written, else 0), `notified` and `at`, the
 * transaction's time (the time of the messages and of a hand-over).
 */
export function exchangeStatement<Settle extends object>(
  variant: 'new' | 'continued',
  settle: string,
): NamedStatement<ExchangeParams & Settle> {
  return named(`WITH conversation AS (${variant === 'new' ? NEW_CONVERSATION : CONTINUED_CONVERSATION}),
     stored AS (
       INSERT INTO messages (tenant_id, conversation_id, bot_id, channel, role, content, tokens, model,
                             knowledge_used, sources, actions, blocks, handover_reason)
       SELECT :tenant_id, c.id, :bot_id, :channel, m.role, m.content, m.tokens, :model, :knowledge_used,
              m.sources, m.actions, m.blocks, m.handover
       FROM conversation c
       CROSS JOIN (VALUES (1, 'user', :question::text, :question_tokens::integer,
                           NULL::jsonb, NULL::jsonb, NULL::jsonb, NULL::text),
                          (2, 'assistant', :answer::text, :answer_tokens::integer,
                           :sources::jsonb, :actions::jsonb, :blocks::jsonb, :handover_reason::text))
         AS m(position, role, content, tokens, sources, actions, blocks, handover)
       ORDER BY m.position
       RETURNING 1
     ),
     ${settle},
     -- Delivered at commit, and only when the exchange was stored.
     notified AS (
       SELECT pg_notify(:notify_channel, payload) FROM unnest(:notify_payloads::text[]) AS payload
       WHERE EXISTS (SELECT 1 FROM conversation)
     )
     SELECT count(*)::int AS stored, (SELECT count(*) FROM notified)::int AS notified, now() AS at
     FROM conversation`);
}
