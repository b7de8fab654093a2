import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';

export interface ActivityRow {
  messages: number;
  replies: number;
  tokens: number;
}

/** Messages counted against the quota in the month starting on `period` ('YYYY-MM-DD'). */
export async function messagesUsed(db: Queryable, tenantId: string, period: string): Promise<number> {
  const row = await queryOne<{ messages_used: number }>(
    db,
    'SELECT messages_used FROM usage_counters WHERE tenant_id = $1 AND period = $2',
    [tenantId, period],
  );
  return row?.messages_used ?? 0;
}

// Inbound (user) messages are what the quota counts; replies and tokens are shown beside them.
const ACTIVITY = `count(*) FILTER (WHERE role = 'user')::int AS messages,
  count(*) FILTER (WHERE role = 'assistant')::int AS replies,
  coalesce(sum(tokens), 0)::bigint AS tokens`;

/** Activity per UTC day in [start, end); days without messages are absent. */
export function activityPerDay(
  db: Queryable,
  tenantId: string,
  start: Date,
  end: Date,
): Promise<(ActivityRow & { day: string })[]> {
  return db.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${ACTIVITY}
     FROM messages WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3
     GROUP BY 1 ORDER BY 1`,
    [tenantId, start, end],
  );
}

/** Activity per bot of the tenant in [start, end), every bot listed, busiest first. */
export function activityPerBot(
  db: Queryable,
  tenantId: string,
  start: Date,
  end: Date,
): Promise<(ActivityRow & { bot_id: string; name: string })[]> {
  return db.query(
    `SELECT b.id AS bot_id, b.name,
            coalesce(a.messages, 0)::int AS messages, coalesce(a.replies, 0)::int AS replies,
            coalesce(a.tokens, 0)::bigint AS tokens
     FROM bots b
     LEFT JOIN (
       SELECT bot_id, ${ACTIVITY} FROM messages
       WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY bot_id
     ) a ON a.bot_id = b.id
     WHERE b.tenant_id = $1
     ORDER BY messages DESC, tokens DESC, b.name, b.id`,
    [tenantId, start, end],
  );
}
