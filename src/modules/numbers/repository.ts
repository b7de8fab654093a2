import type { Queryable } from '../../db/database.js';

/** The period and bot every figure is counted over: [from, before), bot null = all bots. */
export interface NumbersScope {
  from: Date;
  before: Date;
  botId: string | null;
}

/**
 * The parameters, and the bot condition on `column`: a statement of its own for one bot, so
 * the planner can use the bot's indexes (an `$4 IS NULL OR …` would hide them).
 */
const args = (tenantId: string, scope: NumbersScope) =>
  scope.botId ? [tenantId, scope.from, scope.before, scope.botId] : [tenantId, scope.from, scope.before];
const onBot = (scope: NumbersScope, column: string) => (scope.botId ? `AND ${column} = $4::uuid` : '');

/** Customers' conversations started per day, and how many of them were handed over. */
export function conversationsPerDay(db: Queryable, tenantId: string, scope: NumbersScope) {
  return db.query<{ day: string; conversations: number; handed_over: number }>(
    `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS conversations,
       count(*) FILTER (WHERE handover_at IS NOT NULL OR escalated_at IS NOT NULL)::int AS handed_over
     FROM conversations
     WHERE tenant_id = $1 AND NOT is_test AND created_at >= $2 AND created_at < $3
       ${onBot(scope, 'bot_id')}
     GROUP BY 1`,
    args(tenantId, scope),
  );
}

/**
 * Bot replies per day and how many drew on knowledge. Replies of the dashboard's test chat are
 * counted apart and subtracted: they are few, and the index of bot replies stays narrow.
 */
export function repliesPerDay(db: Queryable, tenantId: string, scope: NumbersScope) {
  return db.query<{ day: string; replies: number; from_knowledge: number }>(
    `WITH counted AS (
       SELECT date_trunc('day', created_at AT TIME ZONE 'UTC') AS day, count(*) AS replies,
         count(*) FILTER (WHERE knowledge_used) AS from_knowledge
       FROM messages
       WHERE tenant_id = $1 AND role = 'assistant' AND author_user_id IS NULL
         AND created_at >= $2 AND created_at < $3 ${onBot(scope, 'bot_id')}
       GROUP BY 1
       UNION ALL
       SELECT date_trunc('day', m.created_at AT TIME ZONE 'UTC'), -count(*), -count(*) FILTER (WHERE m.knowledge_used)
       FROM conversations c JOIN messages m ON m.conversation_id = c.id
       WHERE c.tenant_id = $1 AND c.is_test AND m.role = 'assistant' AND m.author_user_id IS NULL
         AND m.created_at >= $2 AND m.created_at < $3 ${onBot(scope, 'c.bot_id')}
       GROUP BY 1
     )
     SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(replies)::int AS replies, sum(from_knowledge)::int AS from_knowledge
     FROM counted GROUP BY day`,
    args(tenantId, scope),
  );
}

/** Hand-overs in the period and the median time to a person's first reply after each. */
export async function firstHumanReply(db: Queryable, tenantId: string, scope: NumbersScope) {
  const rows = await db.query<{ median_seconds: number | null; handovers: number; answered: number }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM f.at - c.handover_at))::float8
         AS median_seconds,
       count(*)::int AS handovers, count(f.at)::int AS answered
     FROM conversations c
     CROSS JOIN LATERAL (
       SELECT min(m.created_at) AS at FROM messages m
       WHERE m.conversation_id = c.id AND m.author_user_id IS NOT NULL AND m.created_at >= c.handover_at
     ) f
     WHERE c.tenant_id = $1 AND NOT c.is_test AND c.handover_at >= $2 AND c.handover_at < $3
       ${onBot(scope, 'c.bot_id')}`,
    args(tenantId, scope),
  );
  return rows[0] ?? { median_seconds: null, handovers: 0, answered: 0 };
}

/** Customers' ratings given in the period, per number of stars. */
export function ratings(db: Queryable, tenantId: string, scope: NumbersScope) {
  return db.query<{ rating: number; count: number }>(
    `SELECT rating::int AS rating, count(*)::int AS count FROM conversations
     WHERE tenant_id = $1 AND NOT is_test AND rated_at >= $2 AND rated_at < $3 AND rating IS NOT NULL
       ${onBot(scope, 'bot_id')}
     GROUP BY rating`,
    args(tenantId, scope),
  );
}

/**
 * The team's verdicts on bot replies (conversation review) given in the period: good and bad,
 * customers' test conversations left out.
 */
export async function staffReviews(db: Queryable, tenantId: string, scope: NumbersScope) {
  const rows = await db.query<{ good: number; bad: number }>(
    `SELECT count(*) FILTER (WHERE r.verdict = 'good')::int AS good,
       count(*) FILTER (WHERE r.verdict = 'bad')::int AS bad
     FROM message_reviews r JOIN conversations c ON c.id = r.conversation_id
     WHERE r.tenant_id = $1 AND r.reviewed_at >= $2 AND r.reviewed_at < $3 AND NOT c.is_test
       ${onBot(scope, 'c.bot_id')}`,
    args(tenantId, scope),
  );
  return rows[0] ?? { good: 0, bad: 0 };
}

/** Bookings the bots made in the period (the chat's booking tags). */
export async function botBookings(db: Queryable, tenantId: string, scope: NumbersScope) {
  const rows = await db.query<{ made: number; waitlist: number }>(
    `SELECT count(*)::int AS made, count(*) FILTER (WHERE metadata->>'tag' = 'WAITLIST')::int AS waitlist
     FROM event_bookings
     WHERE tenant_id = $1 AND metadata->>'source' = 'chat' AND booked_at >= $2 AND booked_at < $3
       ${scope.botId ? `AND metadata->>'bot_id' = $4::text` : ''}`,
    args(tenantId, scope),
  );
  return rows[0] ?? { made: 0, waitlist: 0 };
}
