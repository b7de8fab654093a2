import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import type { HandoverReason } from '../conversations/handover.js';
import type { ConversationRow } from '../conversations/service.js';

/** A conversation as the inbox reads and locks it. */
export interface InboxConversationRow {
  id: string;
  tenant_id: string;
  bot_id: string;
  bot_name: string;
  channel: ConversationRow['channel'];
  sender_id: string | null;
  status: ConversationRow['status'];
  assigned_user_id: string | null;
  assigned_user_name: string | null;
  handover_reason: HandoverReason | null;
  handover_at: Date | null;
  handover_question: string | null;
  is_test: boolean;
  message_count: number;
  last_message_at: Date | null;
  last_message: string | null;
  unread: boolean;
  created_at: Date;
}

const SELECT = `SELECT c.id, c.tenant_id, c.bot_id, b.name AS bot_name, c.channel, c.sender_id, c.status,
    c.assigned_user_id, nullif(trim(concat_ws(' ', u.first_name, u.last_name)), '') AS assigned_user_name,
    c.handover_reason, c.handover_at, c.handover_question, c.is_test, c.message_count,
    c.last_message_at, c.created_at,
    (SELECT m.content FROM messages m WHERE m.conversation_id = c.id ORDER BY m.seq DESC LIMIT 1) AS last_message,
    EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.role = 'user'
            AND m.created_at > coalesce(c.inbox_read_at, '-infinity'::timestamptz)) AS unread
  FROM conversations c
  JOIN bots b ON b.id = c.bot_id
  LEFT JOIN users u ON u.id = c.assigned_user_id`;

export interface InboxFilters {
  /** mine: assigned to the user; unassigned: waiting for a person; all: both. */
  view: 'all' | 'mine' | 'unassigned';
  userId: string;
  botId?: string;
  /** Keyset position: after this row (by latest activity, then id). */
  after?: TimeCursor;
  limit: number;
}

/** The inbox's sort key: the latest activity of a conversation. */
const ACTIVITY = 'coalesce(c.last_message_at, c.handover_at, c.created_at)';

/** Waiting and assigned conversations, the newest activity first, with each row's cursor position. */
export function listInbox(db: Queryable, tenantId: string, filters: InboxFilters) {
  const params: unknown[] = [tenantId];
  const where = [`c.tenant_id = $1`, `c.status = 'handed_over'`];
  if (filters.view === 'mine') {
    params.push(filters.userId);
    where.push(`c.assigned_user_id = $${params.length}`);
  }
  if (filters.view === 'unassigned') where.push('c.assigned_user_id IS NULL');
  if (filters.botId !== undefined) {
    params.push(filters.botId);
    where.push(`c.bot_id = $${params.length}::uuid`);
  }
  if (filters.after) {
    params.push(filters.after.at, filters.after.id);
    where.push(`(${ACTIVITY}, c.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(filters.limit);
  return db.query<InboxConversationRow & { cursor_at: string }>(
    `SELECT * FROM (${SELECT.replace('SELECT ', `SELECT ${cursorTimestampSql(ACTIVITY)} AS cursor_at, `)}
       WHERE ${where.join(' AND ')}
       ORDER BY ${ACTIVITY} DESC, c.id DESC LIMIT $${params.length}) page`,
    params,
  );
}

export function findInboxConversation(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<InboxConversationRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<InboxConversationRow>(db, `${SELECT} WHERE c.tenant_id = $1 AND c.id = $2`, [tenantId, id]);
}

/** The conversation's hand-over columns, locked for the rest of the transaction. */
export function lockForInbox(tx: Queryable, tenantId: string, id: string) {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<{
    id: string;
    bot_id: string;
    channel: string;
    status: ConversationRow['status'];
    assigned_user_id: string | null;
  }>(
    tx,
    `SELECT id, bot_id, channel, status, assigned_user_id FROM conversations
     WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
    [tenantId, id],
  );
}

/** Unread conversations the user should look at: assigned to them, or waiting for anyone. */
export async function countUnread(db: Queryable, tenantId: string, userId: string): Promise<number> {
  const row = await queryOne<{ count: number }>(
    db,
    `SELECT count(*)::int AS count FROM conversations c
     WHERE c.tenant_id = $1 AND c.status = 'handed_over'
       AND (c.assigned_user_id IS NULL OR c.assigned_user_id = $2)
       AND EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.role = 'user'
                   AND m.created_at > coalesce(c.inbox_read_at, '-infinity'::timestamptz))`,
    [tenantId, userId],
  );
  return row?.count ?? 0;
}

export interface TranscriptMessage {
  id: string;
  seq: number;
  role: string;
  content: string;
  author_user_id: string | null;
  author_name: string | null;
  created_at: Date;
}

export function listTranscript(db: Queryable, tenantId: string, conversationId: string, limit: number) {
  return db.query<TranscriptMessage>(
    `SELECT * FROM (
       SELECT m.id, m.seq, m.role, m.content, m.author_user_id,
         nullif(trim(concat_ws(' ', u.first_name, u.last_name)), '') AS author_name, m.created_at
       FROM messages m LEFT JOIN users u ON u.id = m.author_user_id
       WHERE m.tenant_id = $1 AND m.conversation_id = $2 ORDER BY m.seq DESC LIMIT $3
     ) last ORDER BY seq`,
    [tenantId, conversationId, limit],
  );
}

export interface NoteRow {
  id: string;
  content: string;
  author_user_id: string | null;
  author_name: string | null;
  created_at: Date;
}

export function listNotes(db: Queryable, tenantId: string, conversationId: string) {
  return db.query<NoteRow>(
    `SELECT n.id, n.content, n.author_user_id,
       nullif(trim(concat_ws(' ', u.first_name, u.last_name)), '') AS author_name, n.created_at
     FROM conversation_notes n LEFT JOIN users u ON u.id = n.author_user_id
     WHERE n.tenant_id = $1 AND n.conversation_id = $2 ORDER BY n.created_at, n.id`,
    [tenantId, conversationId],
  );
}

export async function insertNote(
  tx: Queryable,
  tenantId: string,
  conversationId: string,
  userId: string,
  content: string,
): Promise<NoteRow> {
  const row = await queryOne<NoteRow>(
    tx,
    `INSERT INTO conversation_notes (tenant_id, conversation_id, author_user_id, content)
     VALUES ($1, $2, $3, $4) RETURNING id, content, author_user_id, NULL::text AS author_name, created_at`,
    [tenantId, conversationId, userId, content],
  );
  return row!;
}

/**
 * Stores a message in a conversation without the bot: a person's reply (role assistant with
 * its author) or a customer's message while people hold the conversation (role user). A
 * customer's message sent again with the same Idempotency-Key is stored once: undefined then.
 */
export async function insertMessage(
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

/** The tenant's active user with an inbox role (an assignee), or undefined. */
export function findAssignee(db: Queryable, tenantId: string, userId: string) {
  if (!isUuid(userId)) return Promise.resolve(undefined);
  return queryOne<{ id: string; email: string; role: string }>(
    db,
    `SELECT id, email, role FROM users WHERE tenant_id = $1 AND id = $2 AND is_active
       AND role IN ('owner', 'admin', 'editor', 'agent')`,
    [tenantId, userId],
  );
}
