import type { Database } from '../../db/database.js';
import { badRequest } from '../../http/errors.js';
import { getBot } from '../bots/service.js';
import { groupQuestions, type Occurrence } from './grouping.js';

/** How many of the newest occurrences are grouped (a dashboard list, not a report). */
const MAX_OCCURRENCES = 2000;

const authorColumn = new WeakMap<Database, Promise<boolean>>();

/** Whether messages carry the author of a person's reply (the inbox adds the column). */
function hasAuthorColumn(db: Database): Promise<boolean> {
  let known = authorColumn.get(db);
  if (!known) {
    known = db
      .query<{ n: number }>(
        `SELECT count(*)::int AS n FROM information_schema.columns
         WHERE table_name = 'messages' AND column_name = 'author_user_id'`,
      )
      .then((rows) => (rows[0]?.n ?? 0) > 0);
    authorColumn.set(db, known);
  }
  return known;
}

interface OccurrenceRow {
  id: string;
  conversation_id: string;
  question: string;
  at: Date;
  handed_over: boolean;
  person_answer: string | null;
}

/**
 * Customer questions of the bot that its reply answered without knowledge, or that were
 * handed over without a reply of the bot, in the last `days` days; grouped by their words.
 * A person's later reply in the conversation (when messages carry an author) comes along.
 */
export async function listUnanswered(db: Database, tenantId: string, botId: string, days: number) {
  await getBot(db, tenantId, botId);
  const withAuthor = await hasAuthorColumn(db);
  const botReply = withAuthor ? 'AND a.author_user_id IS NULL' : '';
  const personAnswer = withAuthor
    ? `(SELECT p.content FROM messages p WHERE p.conversation_id = u.conversation_id AND p.seq > u.seq
         AND p.role = 'assistant' AND p.author_user_id IS NOT NULL ORDER BY p.seq LIMIT 1)`
    : 'NULL::text';
  const rows = await db.query<OccurrenceRow>(
    `SELECT u.id, u.conversation_id, u.content AS question, u.created_at AS at,
            (a.id IS NULL OR (c.escalated_at IS NOT NULL AND c.escalated_at >= u.created_at)) AS handed_over,
            ${personAnswer} AS person_answer
     FROM messages u
     JOIN conversations c ON c.id = u.conversation_id
     LEFT JOIN LATERAL (
       SELECT a.id, a.knowledge_used FROM messages a
       WHERE a.conversation_id = u.conversation_id AND a.seq > u.seq AND a.role = 'assistant' ${botReply}
       ORDER BY a.seq LIMIT 1
     ) a ON true
     WHERE u.tenant_id = $1 AND u.bot_id = $2 AND u.role = 'user'
       AND u.created_at >= now() - make_interval(days => $3)
       AND ((a.id IS NOT NULL AND a.knowledge_used = false) OR (a.id IS NULL AND c.escalated_at IS NOT NULL))
     ORDER BY u.created_at DESC LIMIT ${MAX_OCCURRENCES}`,
    [tenantId, botId, days],
  );
  const resolved = await db.query<{ group_key: string; resolved_at: Date }>(
    'SELECT group_key, resolved_at FROM unanswered_resolutions WHERE tenant_id = $1 AND bot_id = $2',
    [tenantId, botId],
  );
  const occurrences: Occurrence[] = rows.map((r) => ({
    messageId: r.id,
    conversationId: r.conversation_id,
    question: r.question,
    at: r.at,
    handedOver: r.handed_over,
    personAnswer: r.person_answer,
  }));
  const groups = groupQuestions(occurrences, new Map(resolved.map((r) => [r.group_key, r.resolved_at])));
  return {
    data: groups.map((g) => ({
      ...g,
      last_seen: g.last_seen.toISOString(),
      conversation_ids: g.conversation_ids.slice(0, 20),
    })),
  };
}

/** Marks a group as handled: its occurrences so far leave the list; later ones bring it back. */
export async function resolveUnanswered(
  db: Database,
  tenantId: string,
  botId: string,
  userId: string,
  key: string,
): Promise<void> {
  await getBot(db, tenantId, botId);
  const trimmed = key.trim();
  if (!trimmed) throw badRequest("Field 'key' must not be empty", { field: 'key' });
  await db.query(
    `INSERT INTO unanswered_resolutions (tenant_id, bot_id, group_key, resolved_at, resolved_by)
     VALUES ($1, $2, $3, now(), $4)
     ON CONFLICT (tenant_id, bot_id, group_key) DO UPDATE SET resolved_at = now(), resolved_by = EXCLUDED.resolved_by`,
    [tenantId, botId, trimmed, userId],
  );
}

/** Questions a "top" list groups at most (the newest occurrences of the period). */
const TOP_OCCURRENCES = 2000;

/**
 * The most frequent unanswered questions of a period, over one bot or all of them: the
 * customer questions the bot replied to without knowledge. One statement driven by the index
 * of replies without knowledge, so its cost does not grow with the tenant's history; groups
 * marked as handled leave the list as in listUnanswered.
 */
export async function topUnanswered(
  db: Database,
  tenantId: string,
  scope: { botId: string | null; from: Date; before: Date; limit: number },
) {
  const rows = await db.query<OccurrenceRow & { bot_id: string }>(
    `SELECT q.id, a.conversation_id, a.bot_id, q.content AS question, q.created_at AS at,
            (c.escalated_at IS NOT NULL AND c.escalated_at >= q.created_at) AS handed_over,
            NULL::text AS person_answer
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
  const resolved = await db.query<{ bot_id: string; group_key: string; resolved_at: Date }>(
    `SELECT bot_id, group_key, resolved_at FROM unanswered_resolutions
     WHERE tenant_id = $1 AND ($2::uuid IS NULL OR bot_id = $2::uuid)`,
    [tenantId, scope.botId],
  );
  const perBot = new Map<string, Occurrence[]>();
  for (const r of rows) {
    const list = perBot.get(r.bot_id) ?? [];
    list.push({
      messageId: r.id,
      conversationId: r.conversation_id,
      question: r.question,
      at: r.at,
      handedOver: r.handed_over,
      personAnswer: null,
    });
    perBot.set(r.bot_id, list);
  }
  return [...perBot.entries()]
    .flatMap(([botId, occurrences]) =>
      groupQuestions(
        occurrences,
        new Map(resolved.filter((r) => r.bot_id === botId).map((r) => [r.group_key, r.resolved_at])),
      ).map((g) => ({
        bot_id: botId,
        key: g.key,
        question: g.question,
        count: g.count,
        handed_over: g.handed_over,
      })),
    )
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key))
    .slice(0, scope.limit);
}
