import { personAnswerOf } from './person-answer.js';
import type { Database } from '../../db/database.js';
import { badRequest } from '../../http/errors.js';
import { getBot } from '../bots/index.js';
import { groupQuestions, type Occurrence } from './grouping.js';
import {
  listOccurrences,
  listResolutions,
  listResolutionsOfScope,
  listTopOccurrences,
  messagesHaveAuthorColumn,
  upsertResolution,
} from './repository.js';

const authorColumn = new WeakMap<Database, Promise<boolean>>();

/** Whether messages carry the author of a person's reply, asked once per database. */
function hasAuthorColumn(db: Database): Promise<boolean> {
  let known = authorColumn.get(db);
  if (!known) {
    known = messagesHaveAuthorColumn(db);
    authorColumn.set(db, known);
  }
  return known;
}

/**
 * Customer questions of the bot that its reply answered without knowledge, or that were
 * handed over without a reply of the bot, in the last `days` days; grouped by their words.
 * A person's later reply in the conversation (when messages carry an author) comes along.
 */
export async function listUnanswered(db: Database, tenantId: string, botId: string, days: number) {
  await getBot(db, tenantId, botId);
  const withAuthor = await hasAuthorColumn(db);
  const rows = await listOccurrences(db, tenantId, botId, days, withAuthor);
  const resolved = await listResolutions(db, tenantId, botId);
  const occurrences: Occurrence[] = rows.map((r) => ({
    messageId: r.id,
    conversationId: r.conversation_id,
    question: r.question,
    at: r.at,
    handedOver: r.handed_over,
    personAnswer: personAnswerOf(r.person_replies ?? []),
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
  await upsertResolution(db, tenantId, botId, trimmed, userId);
}

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
  const rows = await listTopOccurrences(db, tenantId, scope);
  const resolved = await listResolutionsOfScope(db, tenantId, scope.botId);
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
