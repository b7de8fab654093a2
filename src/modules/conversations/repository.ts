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
