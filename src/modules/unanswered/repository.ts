import type { Queryable } from '../../db/database.js';

/** Unanswered questions: reads over messages and conversations, and the groups marked handled. */

/** How many of the newest occurrences a bot's list groups (a dashboard list, not a report). */
export const MAX_OCCURRENCES = 2000;
/** Questions a "top" list groups at most (the newest occurrences of the period). */
export const TOP_OCCURRENCES = 2000;

export interface OccurrenceRow {
  id: string;
  conversation_id: string;
  question: string;
  at: Date;
  handed_over: boolean;
  /** A person's replies after the question (at most 5, oldest first); null without any. */
  person_replies: string[] | null;
}

/** Whether messages carry the author of a person's reply (the inbox adds the column). */
export async function messagesHaveAuthorColumn(db: Queryable): Promise<boolean> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM information_schema.columns
     WHERE table_name = 'messages' AND column_name = 'author_user_id'`,
  );
  return (rows[0]?.n ?? 0) > 0;
}

/**
 * The bot's customer questions of the last `days` days that its reply answered without
 * knowledge, or that were handed over without a reply of the bot, newest first; with a
 * person's later replies when messages carry an author (`withAuthor`). Handed over: the reply
 * that handed over carries its reason (its time and the question's come from two clocks, the
 * application's and the database's), or the conversation was handed over after the question.
 */
export function listOccurrences(
  db: Queryable,
  tenantId: string,
  botId: string,
  days: number,
  withAuthor: boolean,
): Promise<OccurrenceRow[]> {
  const botReply = withAuthor ? 'AND a.author_user_id IS NULL' : '';
  const personReplies = withAuthor
    ? `(SELECT json_agg(p.content ORDER BY p.seq) FROM (
         SELECT p.content, p.seq FROM messages p WHERE p.conversation_id = u.conversation_id AND p.seq > u.seq
           AND p.role = 'assistant' AND p.author_user_id IS NOT NULL ORDER BY p.seq LIMIT 5) p)`
    : 'NULL::json';
  return db.query<OccurrenceRow>(
    `SELECT u.id, u.conversation_id, u.content AS question, u.created_at AS at,
            (a.id IS NULL OR a.handover_reason IS NOT NULL
              OR (c.escalated_at IS NOT NULL AND c.escalated_at >= u.created_at)) AS handed_over,
            ${personReplies} AS person_replies
     FROM messages u
     JOIN conversations c ON c.id = u.conversation_id
     LEFT JOIN LATERAL (
       SELECT a.id, a.knowledge_used, a.handover_reason FROM messages a
       WHERE a.conversation_id = u.conversation_id AND a.seq > u.seq AND a.role = 'assistant' ${botReply}
       ORDER BY a.seq LIMIT 1
     ) a ON true
     WHERE u.tenant_id = $1 AND u.bot_id = $2 AND u.role = 'user'
       AND u.created_at >= now() - make_interval(days => $3)
       AND ((a.id IS NOT NULL AND a.knowledge_used = false) OR (a.id IS NULL AND c.escalated_at IS NOT NULL))
     ORDER BY u.created_at DESC LIMIT ${MAX_OCCURRENCES}`,
    [tenantId, botId, days],
  );
}

/** The groups of the bot marked as handled, with when. */
export function listResolutions(
  db: Queryable,
  tenantId: string,
  botId: string,
): Promise<{ group_key: string; resolved_at: Date }[]> {
  return db.query<{ group_key: string; resolved_at: Date }>(
    'SELECT group_key, resolved_at FROM unanswered_resolutions WHERE tenant_id = $1 AND bot_id = $2',
    [tenantId, botId],
  );
}

/** Marks a group handled now (again, when it was before). */
export async function upsertResolution(
  db: Queryable,
  tenantId: string,
  botId: string,
  key: string,
  userId: string,
): Promise<void> {
  await db.query(
    `INSERT INTO unanswered_resolutions (tenant_id, bot_id, group_key, resolved_at, resolved_by)
     VALUES ($1, $2, $3, now(), $4)
     ON CONFLICT (tenant_id, bot_id, group_key) DO UPDATE SET resolved_at = now(), resolved_by = EXCLUDED.resolved_by`,
    [tenantId, botId, key, userId],
  );
}

/**
 * The customer questions of a period the bot replied to without knowledge, over one bot or
 * all (`botId` null), newest first. Driven by the index of replies without knowledge, so its
 * cost does not grow with the tenant's history.
 */
export function listTopOccurrences(
  db: Queryable,
  tenantId: string,
  scope: { botId: string | null; from: Date; before: Date },
): Promise<(OccurrenceRow & { bot_id: string })[]> {
  return db.query<OccurrenceRow & { bot_id: string }>(
    `SELECT q.id, a.conversation_id, a.bot_id, q.content AS question, q.created_at AS at,
            (a.handover_reason IS NOT NULL
              OR (c.escalated_at IS NOT NULL AND c.escalated_at >= q.created_at)) AS handed_over,
            NULL::json AS person_replies
     FROM messages a
     JOIN conversations c ON c.id = a.conversation_id AND NOT c.is_test
     CROSS JOIN LATERAL (
       SELECT u.id, u.content, u.created_at FROM messages u
       WHERE u.conversation_id = a.conversation_id AND u.seq < a.seq AND u.role = 'user'
       ORDER BY u.seq DESC LIMIT 1
     ) q
     WHERE a.tenant_id = $1 AND a.role = 'assistant' AND a.knowledge_used = false AND a.author_user_id IS NULL
       AND a.created_at >= $2 AND a.created_at < $3 AND ($4::uuid IS NULL OR a.bot_id = $4::uuid)
     ORDER BY a.created_at DESC LIMIT ${TOP_OCCURRENCES}`,
    [tenantId, scope.from, scope.before, scope.botId],
  );
}

/** The groups marked as handled of one bot or all (`botId` null). */
export function listResolutionsOfScope(
  db: Queryable,
  tenantId: string,
  botId: string | null,
): Promise<{ bot_id: string; group_key: string; resolved_at: Date }[]> {
  return db.query<{ bot_id: string; group_key: string; resolved_at: Date }>(
    `SELECT bot_id, group_key, resolved_at FROM unanswered_resolutions
     WHERE tenant_id = $1 AND ($2::uuid IS NULL OR bot_id = $2::uuid)`,
    [tenantId, botId],
  );
}
