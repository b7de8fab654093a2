import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';
import type { CONVERSATION_CHANNELS, CONVERSATION_STATUSES, MESSAGE_ROLES } from './schema.js';
import type { CreatedRange } from './date-range.js';
import type { HandoverState } from './handover.js';

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

/**
 * A person's conversations: linked to the contact (lead, merge, verified widget visitor), of the
 * contact's chat sender, or sent from the contact's e-mail address (e-mail channel, a chat
 * sender id that is the address).
 */
export interface PersonRef {
  contactId: string;
  senderId: string | null;
  email?: string | null;
}

const OF_PERSON = `tenant_id = $1 AND (contact_id = $2 OR (sender_id IS NOT NULL
  AND (sender_id = $3 OR lower(btrim(sender_id)) = lower(btrim($4::text)))))`;

const personParams = (tenantId: string, person: PersonRef) => [
  tenantId,
  person.contactId,
  person.senderId,
  person.email ?? null,
];

export async function relinkConversationsOfPerson(
  db: Queryable,
  tenantId: string,
  person: PersonRef,
  toContactId: string,
): Promise<void> {
  await db.query(`UPDATE conversations SET contact_id = $5, updated_at = now() WHERE ${OF_PERSON}`, [
    ...personParams(tenantId, person),
    toContactId,
  ]);
}

/** Deletes the person's conversations (messages and notes go with them). */
export async function deleteConversationsOfPerson(
  db: Queryable,
  tenantId: string,
  person: PersonRef,
): Promise<{ conversations: number; messages: number }> {
  const rows = await db.query<{ conversations: number; messages: number }>(
    `WITH gone AS (DELETE FROM conversations WHERE ${OF_PERSON} RETURNING message_count)
     SELECT count(*)::int AS conversations, coalesce(sum(message_count), 0)::int AS messages FROM gone`,
    personParams(tenantId, person),
  );
  return rows[0]!;
}

/** Links a sender's conversations on a channel with a bot to the contact (a verified visitor). */
export async function linkSenderConversations(
  db: Queryable,
  tenantId: string,
  sender: { botId: string; channel: string; senderId: string },
  contactId: string,
): Promise<void> {
  await db.query(
    `UPDATE conversations SET contact_id = $5, updated_at = now()
     WHERE tenant_id = $1 AND bot_id = $2 AND channel = $3 AND sender_id = $4
       AND contact_id IS DISTINCT FROM $5`,
    [tenantId, sender.botId, sender.channel, sender.senderId, contactId],
  );
}

/** Links the conversation to the contact (a recorded lead). */
export async function linkConversationToContact(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  contactId: string,
): Promise<void> {
  await db.query(
    'UPDATE conversations SET contact_id = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2',
    [tenantId, conversationId, contactId],
  );
}

/** The conversation's lead-relevant fields, locked for the transaction; undefined for another tenant's. */
export function lockConversationForLead(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<
  | { id: string; bot_id: string; sender_id: string | null; channel: string; contact_id: string | null }
  | undefined
> {
  if (!isUuid(conversationId)) return Promise.resolve(undefined);
  return queryOne(
    db,
    `SELECT id, bot_id, sender_id, channel, contact_id FROM conversations
     WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
    [tenantId, conversationId],
  );
}

/** The conversation columns the lifecycle reads and returns (LIFECYCLE_COLUMNS). */
export type LifecycleConversation = Pick<
  ConversationRow,
  | 'id'
  | 'tenant_id'
  | 'bot_id'
  | 'sender_id'
  | 'channel'
  | 'status'
  | 'message_count'
  | 'ended_at'
  | 'end_reason'
  | 'escalated_at'
  | 'escalation_reason'
  | 'rating'
  | 'rating_comment'
  | 'rated_at'
  | 'contact_id'
  | 'updated_at'
> & { reopened_at: Date | null };

const LIFECYCLE_COLUMNS = `id, tenant_id, bot_id, sender_id, channel, status, message_count, ended_at, end_reason,
  escalated_at, escalation_reason, rating, rating_comment, rated_at, contact_id, reopened_at, updated_at`;

export function lockLifecycleConversation(tx: Queryable, tenantId: string, id: string) {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<LifecycleConversation>(
    tx,
    `SELECT ${LIFECYCLE_COLUMNS} FROM conversations WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
    [tenantId, id],
  );
}

function updateLifecycle(tx: Queryable, tenantId: string, id: string, sets: string, params: unknown[]) {
  return queryOne<LifecycleConversation>(
    tx,
    `UPDATE conversations SET ${sets}, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING ${LIFECYCLE_COLUMNS}`,
    [tenantId, id, ...params],
  ) as Promise<LifecycleConversation>;
}

export function markEnded(tx: Queryable, tenantId: string, id: string, reason: string | null) {
  return updateLifecycle(tx, tenantId, id, `status = 'ended', ended_at = now(), end_reason = $3`, [reason]);
}

export function markHandedOver(
  tx: Queryable,
  tenantId: string,
  id: string,
  input: { reason: string | null; handoverReason: string; question: string | null },
) {
  return updateLifecycle(
    tx,
    tenantId,
    id,
    `status = 'handed_over', escalated_at = now(), escalation_reason = $3, assigned_user_id = NULL,
     handover_reason = $4, handover_at = now(), handover_question = $5`,
    [input.reason, input.handoverReason, input.question],
  );
}

export function markReopened(tx: Queryable, tenantId: string, id: string) {
  return updateLifecycle(
    tx,
    tenantId,
    id,
    `status = 'active', ended_at = NULL, end_reason = NULL, reopened_at = now(), assigned_user_id = NULL`,
    [],
  );
}

export function storeRating(
  tx: Queryable,
  tenantId: string,
  id: string,
  rating: number,
  comment: string | null,
) {
  return updateLifecycle(tx, tenantId, id, 'rating = $3, rating_comment = $4, rated_at = now()', [
    rating,
    comment,
  ]);
}

/**
 * Ends (at most `limit`) active conversations whose last activity (last message, creation or
 * reopening) lies before `before`. SKIP LOCKED keeps several instances from sweeping the same rows.
 */
export function endQuietConversations(tx: Queryable, before: Date, limit: number) {
  return tx.query<LifecycleConversation>(
    `WITH due AS (
       SELECT id FROM conversations
       WHERE status = 'active'
         AND greatest(coalesce(last_message_at, created_at), coalesce(reopened_at, created_at)) < $1
       ORDER BY greatest(coalesce(last_message_at, created_at), coalesce(reopened_at, created_at))
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE conversations c
     SET status = 'ended', ended_at = now(), end_reason = 'inactivity', updated_at = now()
     FROM due WHERE c.id = due.id
     RETURNING ${LIFECYCLE_COLUMNS.split(',')
       .map((c) => `c.${c.trim()}`)
       .join(', ')}`,
    [before, limit],
  );
}

/**
 * Writes the conversation's new inbox state (bot, waiting, with a person, closed): status,
 * assignee and, when people take it from the bot, the handover fields.
 */
export async function writeHandoverState(
  tx: Queryable,
  tenantId: string,
  id: string,
  change: { from: HandoverState; to: HandoverState; assignee: string | null },
): Promise<{ id: string; bot_id: string; message_count: number; ended_at: Date | null } | undefined> {
  const { from, to, assignee } = change;
  let sets: string;
  switch (to) {
    case 'bot':
      // Give back: the bot answers again (with the people's messages in its history); the
      // inactivity clock restarts.
      sets = `status = 'active', assigned_user_id = NULL, reopened_at = now()`;
      break;
    case 'closed':
      sets = `status = 'ended', ended_at = now(), end_reason = 'closed_in_inbox'`;
      break;
    case 'waiting':
    case 'with_person':
      sets =
        from === 'bot'
          ? `status = 'handed_over', assigned_user_id = $3, handover_reason = 'staff', handover_at = now(),
             escalated_at = now(), escalation_reason = 'staff', handover_question = NULL`
          : `status = 'handed_over', assigned_user_id = $3`;
      break;
  }
  const params: unknown[] = [tenantId, id];
  if (sets.includes('$3')) params.push(assignee);
  const updated = await tx.query<{
    id: string;
    bot_id: string;
    message_count: number;
    ended_at: Date | null;
  }>(
    `UPDATE conversations SET ${sets}, updated_at = now() WHERE tenant_id = $1 AND id = $2
     RETURNING id, bot_id, message_count, ended_at`,
    params,
  );
  return updated[0];
}

/**
 * Stores a message in a conversation without the bot: a person's reply (role assistant with
 * its author) or a customer's message while people hold the conversation (role user). A
 * customer's message sent again with the same Idempotency-Key is stored once: undefined then.
 */
export async function insertStaffMessage(
  tx: Queryable,
  tenantId: string,
  conversation: { id: string; bot_id: string; channel: string },
  message: {
    role: 'user' | 'assistant';
    content: string;
    authorUserId: string | null;
    idempotencyKey?: string | null;
  },
): Promise<{ id: string; created_at: Date } | undefined> {
  return queryOne<{ id: string; created_at: Date }>(
    tx,
    `WITH inserted AS (
       INSERT INTO messages (tenant_id, conversation_id, bot_id, channel, role, content, tokens, author_user_id,
                             idempotency_key)
       VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8)
       ON CONFLICT (conversation_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING id, created_at
     ), touched AS (
       UPDATE conversations SET message_count = message_count + 1, last_message_at = now(), updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND EXISTS (SELECT 1 FROM inserted)
     )
     SELECT id, created_at FROM inserted`,
    [
      tenantId,
      conversation.id,
      conversation.bot_id,
      conversation.channel,
      message.role,
      message.content,
      message.authorUserId,
      message.idempotencyKey ?? null,
    ],
  );
}

/** Deletes the tenant's conversations by id (messages and notes go with them); returns how many. */
export async function deleteConversationsByIds(
  db: Queryable,
  tenantId: string,
  ids: string[],
): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db.query<{ id: string }>(
    'DELETE FROM conversations WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING id',
    [tenantId, ids],
  );
  return rows.length;
}

/** Marks a new conversation as a test-chat one ($1 tenant, $2 conversation, $4 whether it is new). */
export const MARK_TEST_CONVERSATION = `UPDATE conversations SET is_test = true
  WHERE tenant_id = $1 AND id = $2 AND $4::boolean AND NOT is_test`;

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

/** Hands an open conversation over to the people (waiting, nobody assigned); its id, or nothing when it ended. */
export async function handOverForMail(
  tx: Queryable,
  tenantId: string,
  conversationId: string,
  question: string,
): Promise<string | undefined> {
  const row = await queryOne<{ id: string }>(
    tx,
    `UPDATE conversations SET status = 'handed_over', assigned_user_id = NULL, handover_reason = 'staff',
       handover_at = now(), handover_question = $3, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 AND status <> 'ended' RETURNING id`,
    [tenantId, conversationId, question.slice(0, 2000)],
  );
  return row?.id;
}

/** A new e-mail conversation waiting in the inbox for a person (a mail sent there from the mailbox's list). */
export async function insertWaitingConversation(
  tx: Queryable,
  input: { tenantId: string; botId: string; senderId: string; question: string; metadata: object },
): Promise<string> {
  const row = await queryOne<{ id: string }>(
    tx,
    `INSERT INTO conversations (tenant_id, bot_id, channel, sender_id, metadata, message_count, last_message_at,
       status, handover_reason, handover_at, handover_question)
     VALUES ($1, $2, 'email', $3, $4, 0, now(), 'handed_over', 'staff', now(), $5) RETURNING id`,
    [input.tenantId, input.botId, input.senderId, input.metadata, input.question.slice(0, 2000)],
  );
  return row!.id;
}

/** Counts a customer's message added outside the chat's exchange (a mail sent to the inbox). */
export async function countCustomerMessage(
  tx: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<void> {
  await tx.query(
    `UPDATE conversations SET message_count = message_count + 1, last_message_at = now(), updated_at = now()
     WHERE tenant_id = $1 AND id = $2`,
    [tenantId, conversationId],
  );
}

/** A customer's message that came in on a channel, stored for the people in the inbox (no bot reply). */
export async function insertCustomerMessage(
  tx: Queryable,
  input: { tenantId: string; botId: string; conversationId: string; content: string; channel: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, channel) VALUES ($1, $2, $3, 'user', $4, $5)`,
    [input.tenantId, input.conversationId, input.botId, input.content, input.channel],
  );
}
