import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';
import type { CONVERSATION_CHANNELS, CONVERSATION_STATUSES, MESSAGE_ROLES } from './schema.js';
import type { CreatedRange } from './date-range.js';

export interface ConversationRow {
  id: string;
  tenant_id: string;
  bot_id: string;
  channel: (typeof CONVERSATION_CHANNELS)[number];
  sender_id: string | null;
  metadata: Record<string, unknown>;
  status: (typeof CONVERSATION_STATUSES)[number];
  message_count: number;
  last_message_at: Date | null;
  ended_at: Date | null;
  end_reason: string | null;
  escalated_at: Date | null;
  escalation_reason: string | null;
  rating: number | null;
  rating_comment: string | null;
  rated_at: Date | null;
  contact_id: string | null;
  is_test: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRow {
  id: string;
  seq: number;
  conversation_id: string;
  role: (typeof MESSAGE_ROLES)[number];
  content: string;
  channel: string;
  tokens: number;
  model: string | null;
  knowledge_used: boolean;
  created_at: Date;
}

export interface ConversationListOptions extends CreatedRange {
  botId?: string;
  channel?: string;
  senderId?: string;
  status?: string;
  /** true: only test conversations; false: none of them; undefined: all. */
  isTest?: boolean;
  /** The customer's satisfaction rating (1 to 5). */
  rating?: number;
  /** Has a bot reply staff rated good or bad. */
  review?: 'good' | 'bad';
  /** Was (true) or was never (false) handed over to people. */
  handedOver?: boolean;
  /** Has a bot reply that used no knowledge. */
  noKnowledge?: boolean;
  after?: TimeCursor;
  limit: number;
}

const CONVERSATION_COLUMNS = `id, tenant_id, bot_id, channel, sender_id, metadata, status, message_count,
  last_message_at, ended_at, end_reason, escalated_at, escalation_reason, rating, rating_comment, rated_at,
  contact_id, is_test, created_at, updated_at`;

/** The tenant's conversations, newest first, with each row's cursor position. */
export function listConversations(
  db: Queryable,
  tenantId: string,
  options: ConversationListOptions,
): Promise<(ConversationRow & { cursor_at: string })[]> {
  const params: unknown[] = [tenantId];
  const where = ['tenant_id = $1'];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    where.push(condition(`$${params.length}`));
  };
  if (options.botId !== undefined) add((p) => `bot_id = ${p}::uuid`, options.botId);
  if (options.channel !== undefined) add((p) => `channel = ${p}`, options.channel);
  if (options.senderId !== undefined) add((p) => `sender_id = ${p}`, options.senderId);
  if (options.status !== undefined) add((p) => `status = ${p}`, options.status);
  if (options.isTest !== undefined) add((p) => `is_test = ${p}`, options.isTest);
  if (options.rating !== undefined) add((p) => `rating = ${p}`, options.rating);
  if (options.review !== undefined) {
    add(
      (p) =>
        `EXISTS (SELECT 1 FROM message_reviews r WHERE r.conversation_id = conversations.id AND r.verdict = ${p})`,
      options.review,
    );
  }
  if (options.handedOver !== undefined) {
    add((p) => `((handover_at IS NOT NULL OR escalated_at IS NOT NULL) = ${p})`, options.handedOver);
  }
  if (options.noKnowledge) {
    where.push(`EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = conversations.id
      AND m.role = 'assistant' AND m.author_user_id IS NULL AND NOT m.knowledge_used)`);
  }
  if (options.from) add((p) => `created_at >= ${p}`, options.from);
  if (options.before) add((p) => `created_at < ${p}`, options.before);
  if (options.until) add((p) => `created_at <= ${p}`, options.until);
  if (options.after) {
    params.push(options.after.at, options.after.id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(options.limit);
  return db.query(
    `SELECT ${CONVERSATION_COLUMNS}, ${cursorTimestampSql('created_at')} AS cursor_at FROM conversations
     WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
}

/** A conversation of the tenant; another tenant's is indistinguishable from a missing one. */
export function findConversation(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<ConversationRow | undefined> {
  if (!isUuid(conversationId)) return Promise.resolve(undefined);
  return queryOne<ConversationRow>(
    db,
    `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE tenant_id = $1 AND id = $2`,
    [tenantId, conversationId],
  );
}

/** Messages of a conversation in the order they were written (seq), after a position. */
export function listMessages(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  options: { afterSeq?: number; limit: number },
): Promise<MessageRow[]> {
  return db.query<MessageRow>(
    `SELECT id, seq, conversation_id, role, content, channel, tokens, model, knowledge_used, created_at
     FROM messages WHERE tenant_id = $1 AND conversation_id = $2 AND seq > $3
     ORDER BY seq LIMIT $4`,
    [tenantId, conversationId, options.afterSeq ?? 0, options.limit],
  );
}

/** Whether the dashboard's test chat held an exchange with the bot (a test conversation with a reply). */
export async function hasTestExchange(db: Queryable, tenantId: string, botId: string): Promise<boolean> {
  const row = await queryOne<{ found: boolean }>(
    db,
    `SELECT EXISTS (
       SELECT 1 FROM conversations c
       JOIN messages m ON m.conversation_id = c.id AND m.role = 'assistant'
       WHERE c.tenant_id = $1 AND c.bot_id = $2 AND c.is_test
     ) AS found`,
    [tenantId, botId],
  );
  return row?.found === true;
}

/** A message of the review: what a bot reply carried, who wrote a person's reply, staff's verdict. */
export interface ReviewMessageRow extends MessageRow {
  author_user_id: string | null;
  author_name: string | null;
  sources: unknown[] | null;
  actions: unknown[] | null;
  blocks: unknown[] | null;
  handover_reason: string | null;
  review_verdict: 'good' | 'bad' | null;
  review_note: string | null;
  reviewed_by: string | null;
  reviewed_by_name: string | null;
  reviewed_at: Date | null;
}

const PERSON = (alias: string) => `nullif(trim(concat_ws(' ', ${alias}.first_name, ${alias}.last_name)), '')`;

/** Messages of a conversation with their review columns, in order, after a position. */
export function listReviewMessages(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  options: { afterSeq?: number; limit: number; messageId?: string },
): Promise<ReviewMessageRow[]> {
  return db.query<ReviewMessageRow>(
    `SELECT m.id, m.seq, m.conversation_id, m.role, m.content, m.channel, m.tokens, m.model, m.knowledge_used,
       m.created_at, m.author_user_id, ${PERSON('a')} AS author_name, m.sources, m.actions, m.blocks,
       m.handover_reason, r.verdict AS review_verdict, r.note AS review_note, r.reviewed_by,
       ${PERSON('rb')} AS reviewed_by_name, r.reviewed_at
     FROM messages m
     LEFT JOIN users a ON a.id = m.author_user_id
     LEFT JOIN message_reviews r ON r.message_id = m.id
     LEFT JOIN users rb ON rb.id = r.reviewed_by
     WHERE m.tenant_id = $1 AND m.conversation_id = $2 AND m.seq > $3 AND ($5::uuid IS NULL OR m.id = $5::uuid)
     ORDER BY m.seq LIMIT $4`,
    [tenantId, conversationId, options.afterSeq ?? 0, options.limit, options.messageId ?? null],
  );
}

/**
 * Stores staff's verdict on a bot reply of the conversation (replacing an earlier one).
 * Returns undefined when the message is not a bot reply of this tenant's conversation.
 */
export function saveReview(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  messageId: string,
  review: { verdict: 'good' | 'bad'; note: string | null; userId: string },
): Promise<{ message_id: string } | undefined> {
  if (!isUuid(conversationId) || !isUuid(messageId)) return Promise.resolve(undefined);
  return queryOne(
    db,
    `INSERT INTO message_reviews (message_id, tenant_id, conversation_id, verdict, note, reviewed_by)
     SELECT m.id, m.tenant_id, m.conversation_id, $4, $5, $6 FROM messages m
     WHERE m.tenant_id = $1 AND m.conversation_id = $2 AND m.id = $3
       AND m.role = 'assistant' AND m.author_user_id IS NULL
     ON CONFLICT (message_id) DO UPDATE
       SET verdict = EXCLUDED.verdict, note = EXCLUDED.note, reviewed_by = EXCLUDED.reviewed_by, reviewed_at = now()
     RETURNING message_id`,
    [tenantId, conversationId, messageId, review.verdict, review.note, review.userId],
  );
}

/** Removes staff's verdict on a reply; false when there was none. */
export async function deleteReview(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  messageId: string,
): Promise<boolean> {
  if (!isUuid(conversationId) || !isUuid(messageId)) return false;
  const rows = await db.query(
    `DELETE FROM message_reviews WHERE tenant_id = $1 AND conversation_id = $2 AND message_id = $3 RETURNING 1`,
    [tenantId, conversationId, messageId],
  );
  return rows.length > 0;
}
