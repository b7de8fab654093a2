import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { isUuid } from '../bots/repository.js';
import type { ModelMessage } from '../models/provider.js';
import type { ChatChannel } from './request.js';

export interface ChatConversation {
  id: string;
  status: 'active' | 'ended' | 'handed_over';
}

export interface ChatTenant {
  id: string;
  name: string;
  industry_code: string | null;
  /** Effective monthly quota (tenant override, else plan); null = unlimited. */
  monthly_message_quota: number | null;
}

/** The tenant with its effective quota, in one query (hot path). */
export function findChatTenant(db: Queryable, tenantId: string): Promise<ChatTenant | undefined> {
  return queryOne<ChatTenant>(
    db,
    `SELECT t.id, t.name, t.industry_code,
            coalesce(t.message_quota_override, p.monthly_message_quota) AS monthly_message_quota
     FROM tenants t
     LEFT JOIN subscriptions s ON s.tenant_id = t.id
     LEFT JOIN plans p ON p.id = s.plan_id
     WHERE t.id = $1`,
    [tenantId],
  );
}

/** A conversation of this bot and tenant; malformed ids and other tenants' rows are missing. */
export function findConversation(
  db: Queryable,
  tenantId: string,
  botId: string,
  conversationId: string,
): Promise<ChatConversation | undefined> {
  if (!isUuid(conversationId)) return Promise.resolve(undefined);
  return queryOne<ChatConversation>(
    db,
    'SELECT id, status FROM conversations WHERE tenant_id = $1 AND id = $2 AND bot_id = $3',
    [tenantId, conversationId, botId],
  );
}

/** The last `limit` user/assistant messages, oldest first. */
export async function loadHistory(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  limit: number,
): Promise<ModelMessage[]> {
  const rows = await db.query<ModelMessage>(
    `SELECT role, content FROM messages
     WHERE tenant_id = $1 AND conversation_id = $2 AND role IN ('user', 'assistant')
     ORDER BY seq DESC LIMIT $3`,
    [tenantId, conversationId, limit],
  );
  return rows.reverse();
}

/**
 * Takes one message from the month's quota, atomically: the conditional upsert lets exactly
 * `quota` requests through however many race, on any number of instances. Returns the new
 * count, or undefined when the quota is used up. Unlimited tenants (quota null) are counted too.
 */
export async function reserveMessage(
  db: Queryable,
  tenantId: string,
  period: string,
  quota: number | null,
): Promise<number | undefined> {
  if (quota !== null && quota <= 0) return undefined;
  const row = await queryOne<{ messages_used: number }>(
    db,
    `INSERT INTO usage_counters AS u (tenant_id, period, messages_used) VALUES ($1, $2, 1)
     ON CONFLICT (tenant_id, period) DO UPDATE SET messages_used = u.messages_used + 1
     WHERE $3::integer IS NULL OR u.messages_used < $3::integer
     RETURNING messages_used`,
    [tenantId, period, quota],
  );
  return row?.messages_used;
}

/** Gives back a reservation of a request that failed before it was answered. */
export async function releaseMessage(db: Queryable, tenantId: string, period: string): Promise<void> {
  await db.query(
    `UPDATE usage_counters SET messages_used = messages_used - 1
     WHERE tenant_id = $1 AND period = $2 AND messages_used > 0`,
    [tenantId, period],
  );
}

export async function addTokens(
  db: Queryable,
  tenantId: string,
  period: string,
  tokens: number,
): Promise<void> {
  await db.query(
    'UPDATE usage_counters SET tokens_used = tokens_used + $3 WHERE tenant_id = $1 AND period = $2',
    [tenantId, period, tokens],
  );
}

export interface NewConversation {
  id: string;
  botId: string;
  channel: ChatChannel;
  senderId: string | null;
  metadata: Record<string, unknown>;
}

export async function insertConversation(
  db: Queryable,
  tenantId: string,
  input: NewConversation,
): Promise<void> {
  await db.query(
    `INSERT INTO conversations (id, tenant_id, bot_id, channel, sender_id, metadata, message_count, last_message_at)
     VALUES ($2, $1, $3, $4, $5, $6, 2, now())`,
    [tenantId, input.id, input.botId, input.channel, input.senderId, JSON.stringify(input.metadata)],
  );
}

/**
 * Counts a question and its reply on an existing conversation. An ended conversation that
 * gets a new message is active again. Returns false when a human took the conversation over
 * in the meantime, so the bot's reply is not stored.
 */
export async function recordExchange(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE conversations
     SET message_count = message_count + 2, last_message_at = now(), updated_at = now(),
         status = 'active',
         ended_at = CASE WHEN status = 'ended' THEN NULL ELSE ended_at END
     WHERE tenant_id = $1 AND id = $2 AND status <> 'handed_over'
     RETURNING id`,
    [tenantId, conversationId],
  );
  return rows.length > 0;
}

export interface StoredMessage {
  role: 'user' | 'assistant';
  content: string;
  tokens: number;
  model: string | null;
  knowledgeUsed: boolean;
}

/** Inserts the messages in the given order (seq keeps it). */
export async function insertMessages(
  db: Queryable,
  tenantId: string,
  input: { conversationId: string; botId: string; channel: ChatChannel; messages: StoredMessage[] },
): Promise<void> {
  const params: unknown[] = [tenantId, input.conversationId, input.botId, input.channel];
  const rows = input.messages.map((m) => {
    params.push(m.role, m.content, m.tokens, m.model, m.knowledgeUsed);
    const n = params.length;
    return `($1, $2, $3, $4, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
  });
  // Rows of one INSERT … VALUES get their identity values in list order.
  await db.query(
    `INSERT INTO messages (tenant_id, conversation_id, bot_id, channel, role, content, tokens, model, knowledge_used)
     VALUES ${rows.join(', ')}`,
    params,
  );
}
