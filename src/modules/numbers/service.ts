import type { Database } from '../../db/database.js';
import { badRequest } from '../../http/errors.js';
import { getBot } from '../bots/index.js';
import { topUnanswered } from '../unanswered/index.js';
import * as repo from './repository.js';
import type { Numbers, NumbersQueryInput } from './schema.js';

const DAY_MS = 86_400_000;
/** Longest period (days). */
export const MAX_DAYS = 366;
const TOP_UNANSWERED = 5;

const dayText = (d: Date) => d.toISOString().slice(0, 10);

function parseDay(field: 'from' | 'to', value: string): Date {
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || dayText(d) !== value) {
    throw badRequest(`Field '${field}' is not a valid day (YYYY-MM-DD)`, { field });
  }
  return d;
}

/** The period of the query: whole UTC days from `from` to `to` inclusive. Pure. */
export function periodOf(query: { from?: string; to?: string }, now: Date = new Date()) {
  const to = query.to ? parseDay('to', query.to) : new Date(`${dayText(now)}T00:00:00Z`);
  const from = query.from ? parseDay('from', query.from) : new Date(to.getTime() - 29 * DAY_MS);
  if (from > to) throw badRequest("Field 'from' must not be after 'to'", { field: 'from' });
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (days > MAX_DAYS) throw badRequest(`The period may span at most ${MAX_DAYS} days`, { field: 'from' });
  return { from, before: new Date(to.getTime() + DAY_MS), days };
}

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : null);

/**
 * The numbers a tenant asks for, per bot (or all) and period: conversations, the share answered
 * from knowledge, the share handed over, the median time to a person's first reply,
 * satisfaction, the team's verdicts on replies, the most frequent unanswered questions and the bots' bookings.
 */
export async function overviewNumbers(
  db: Database,
  tenantId: string,
  query: NumbersQueryInput,
  now: Date = new Date(),
): Promise<Numbers> {
  const period = periodOf(query, now);
  const botId = query.bot_id ?? null;
  if (botId) await getBot(db, tenantId, botId);
  const scope: repo.NumbersScope = { from: period.from, before: period.before, botId };
  const [conversations, replies, human, ratings, reviews, bookings, unanswered] = await Promise.all([
    repo.conversationsPerDay(db, tenantId, scope),
    repo.repliesPerDay(db, tenantId, scope),
    repo.firstHumanReply(db, tenantId, scope),
    repo.ratings(db, tenantId, scope),
    repo.staffReviews(db, tenantId, scope),
    repo.botBookings(db, tenantId, scope),
    topUnanswered(db, tenantId, { ...scope, limit: TOP_UNANSWERED }),
  ]);

  const perDay = new Map(conversations.map((r) => [r.day, r]));
  const repliesPerDay = new Map(replies.map((r) => [r.day, r]));
  const days: Numbers['days'] = [];
  for (let i = 0; i < period.days; i += 1) {
    const day = dayText(new Date(period.from.getTime() + i * DAY_MS));
    days.push({
      day,
      conversations: perDay.get(day)?.conversations ?? 0,
      handed_over: perDay.get(day)?.handed_over ?? 0,
      replies: repliesPerDay.get(day)?.replies ?? 0,
      replies_from_knowledge: repliesPerDay.get(day)?.from_knowledge ?? 0,
    });
  }
  const sum = (key: 'conversations' | 'handed_over' | 'replies' | 'replies_from_knowledge') =>
    days.reduce((total, d) => total + d[key], 0);
  const distribution = [1, 2, 3, 4, 5].map((stars) => ratings.find((r) => r.rating === stars)?.count ?? 0);
  const rated = distribution.reduce((a, b) => a + b, 0);
  const starSum = distribution.reduce((a, n, i) => a + n * (i + 1), 0);
  const total = { conversations: sum('conversations'), handed: sum('handed_over') };
  const reply = { all: sum('replies'), knowledge: sum('replies_from_knowledge') };
  return {
    from: dayText(period.from),
    to: dayText(new Date(period.before.getTime() - DAY_MS)),
    bot_id: botId,
    conversations: total.conversations,
    handed_over: total.handed,
    handed_over_share: ratio(total.handed, total.conversations),
    replies: reply.all,
    replies_from_knowledge: reply.knowledge,
    knowledge_share: ratio(reply.knowledge, reply.all),
    first_human_reply: {
      median_seconds: human.median_seconds === null ? null : Math.round(Number(human.median_seconds)),
      handovers: human.handovers,
      answered: human.answered,
    },
    satisfaction: { average: rated > 0 ? starSum / rated : null, count: rated, distribution },
    staff_reviews: {
      good: reviews.good,
      bad: reviews.bad,
      good_share: ratio(reviews.good, reviews.good + reviews.bad),
    },
    bookings,
    top_unanswered: unanswered,
    days,
  };
}
