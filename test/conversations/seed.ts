import type { Queryable } from '../../src/db/database.js';

export interface SeedConversation {
  channel?: 'email' | 'api' | 'webhook';
  senderId?: string | null;
  status?: 'active' | 'ended' | 'handed_over';
  createdAt?: Date | string;
  /** Messages alternate user / assistant, written in this order. */
  messages?: number;
  tokensPerMessage?: number;
  messagesAt?: Date;
}

/**
 * Writes a conversation with messages the way the chat endpoint stores them. Tests use it to
 * read back through the listing endpoints without calling the chat pipeline.
 */
export async function seedConversation(
  db: Queryable,
  tenantId: string,
  botId: string,
  input: SeedConversation = {},
): Promise<{ id: string; messageIds: string[] }> {
  const [row] = await db.query<{ id: string }>(
    `INSERT INTO conversations (tenant_id, bot_id, channel, sender_id, status, created_at, metadata)
     VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), '{"source":"test"}') RETURNING id`,
    [
      tenantId,
      botId,
      input.channel ?? 'api',
      input.senderId ?? null,
      input.status ?? 'active',
      input.createdAt ?? null,
    ],
  );
  const id = row!.id;
  const messageIds: string[] = [];
  for (let i = 0; i < (input.messages ?? 0); i += 1) {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    const [message] = await db.query<{ id: string }>(
      `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, channel, tokens, model, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, coalesce($9::timestamptz, now())) RETURNING id`,
      [
        tenantId,
        id,
        botId,
        role,
        `${role} message ${i + 1}`,
        input.channel ?? 'api',
        input.tokensPerMessage ?? 10,
        role === 'assistant' ? 'offline' : null,
        input.messagesAt ?? null,
      ],
    );
    messageIds.push(message!.id);
  }
  if (messageIds.length > 0) {
    await db.query(
      `UPDATE conversations SET message_count = $3, last_message_at = now() WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, messageIds.length],
    );
  }
  return { id, messageIds };
}
