import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import type { HandoverReason, ConversationRow } from '../conversations/index.js';

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
  /** The customer's contact name, else e-mail, when the conversation has a contact. */
  customer_name: string | null;
  created_at: Date;
}

/** The reading user's own mark (the user's id is always the query's $2). */
const READ_MARK = `coalesce((SELECT r.read_at FROM inbox_reads r WHERE r.conversation_id = c.id
    AND r.user_id = $2::uuid), '-infinity'::timestamptz)`;

const SELECT = `SELECT c.id, c.tenant_id, c.bot_id, b.name AS bot_name, c.channel, c.sender_id, c.status,
    c.assigned_user_id, nullif(trim(concat_ws(' ', u.first_name, u.last_name)), '') AS assigned_user_name,
    c.handover_reason, c.handover_at, c.handover_question, c.is_test, c.message_count,
    c.last_message_at, c.created_at,
    (SELECT coalesce(nullif(trim(ct.name), ''), ct.email) FROM contacts ct
      WHERE ct.id = c.contact_id AND ct.tenant_id = c.tenant_id) AS customer_name,
    (SELECT m.content FROM messages m WHERE m.conversation_id = c.id ORDER BY m.seq DESC LIMIT 1) AS last_message,
    EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.role = 'user'
            AND m.created_at > ${READ_MARK}) AS unread
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
  const params: unknown[] = [tenantId, filters.userId];
  const where = [`c.tenant_id = $1`, `c.status = 'handed_over'`];
  if (filters.view === 'mine') where.push(`c.assigned_user_id = $2`);
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

/** The conversation as the user sees it in the inbox (unread by their own mark). */
export function findInboxConversation(
  db: Queryable,
  tenantId: string,
  userId: string,
  id: string,
): Promise<InboxConversationRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<InboxConversationRow>(db, `${SELECT} WHERE c.tenant_id = $1 AND c.id = $3`, [
    tenantId,
    userId,
    id,
  ]);
}

/** The user has read the conversation up to now; false when it is not the tenant's. */
export async function markReadBy(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  userId: string,
): Promise<boolean> {
  if (!isUuid(conversationId)) return false;
  const rows = await db.query(
    `INSERT INTO inbox_reads (tenant_id, conversation_id, user_id)
     SELECT c.tenant_id, c.id, $3 FROM conversations c WHERE c.tenant_id = $1 AND c.id = $2
     ON CONFLICT (conversation_id, user_id) DO UPDATE SET read_at = now()
     RETURNING conversation_id`,
    [tenantId, conversationId, userId],
  );
  return rows.length > 0;
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
                   AND m.created_at > ${READ_MARK})`,
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

/** Who the customer of a conversation is: what the channel told, and the linked contact. */
export function findCustomerFacts(db: Queryable, tenantId: string, conversationId: string) {
  return queryOne<{
    metadata: Record<string, unknown> | null;
    contact_id: string | null;
    contact_name: string | null;
    contact_email: string | null;
  }>(
    db,
    `SELECT c.metadata, c.contact_id, k.name AS contact_name, k.email AS contact_email
     FROM conversations c LEFT JOIN contacts k ON k.id = c.contact_id
     WHERE c.tenant_id = $1 AND c.id = $2`,
    [tenantId, conversationId],
  );
}

export interface EarlierConversationRow {
  id: string;
  channel: string;
  status: string;
  message_count: number;
  created_at: Date;
  last_message_at: Date | null;
}

/** The customer's other conversations (same contact, or same sender on the channel), newest first. */
export function listEarlierConversations(
  db: Queryable,
  tenantId: string,
  conversation: { id: string; channel: string; sender_id: string | null; contact_id: string | null },
  limit: number,
) {
  return db.query<EarlierConversationRow>(
    `SELECT id, channel, status, message_count, created_at, last_message_at FROM conversations
     WHERE tenant_id = $1 AND id <> $2 AND is_test = false
       AND ((contact_id IS NOT NULL AND contact_id = $3::uuid)
            OR (sender_id IS NOT NULL AND sender_id = $4 AND channel = $5))
     ORDER BY created_at DESC, id DESC LIMIT $6`,
    [tenantId, conversation.id, conversation.contact_id, conversation.sender_id, conversation.channel, limit],
  );
}

/** A user's name as customers see it: the first name, else the full name; null when none. */
export async function displayNameOf(db: Queryable, tenantId: string, userId: string): Promise<string | null> {
  const row = await queryOne<{ name: string | null }>(
    db,
    `SELECT coalesce(nullif(trim(first_name), ''), nullif(trim(concat_ws(' ', first_name, last_name)), '')) AS name
     FROM users WHERE tenant_id = $1 AND id = $2`,
    [tenantId, userId],
  );
  return row?.name ?? null;
}

/** The conversation's message stored with this Idempotency-Key, if any. */
export function messageByKey(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  idempotencyKey: string,
): Promise<{ id: string; created_at: Date } | undefined> {
  return queryOne<{ id: string; created_at: Date }>(
    db,
    `SELECT id, created_at FROM messages
      WHERE tenant_id = $1 AND conversation_id = $2 AND idempotency_key = $3`,
    [tenantId, conversationId, idempotencyKey],
  );
}
