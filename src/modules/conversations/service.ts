import type { Queryable } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import {
  decodeSeqCursor,
  decodeTimeCursor,
  DEFAULT_PAGE_SIZE,
  encodeSeqCursor,
  encodeTimeCursor,
  splitPage,
} from '../../shared/pagination.js';
import { parseCreatedRange } from './date-range.js';
import {
  findConversation,
  listConversations,
  listMessages,
  type ConversationRow,
  type MessageRow,
} from './repository.js';
import {
  DEFAULT_MESSAGE_PAGE,
  type ConversationFilters,
  type ConversationResponse,
  type MessageResponse,
} from './schema.js';

export type { ConversationRow } from './repository.js';
/** Whether the dashboard's test chat held an exchange with the bot. */
export { hasTestExchange } from './repository.js';

const CONVERSATION_LIST = 'conversations';
const MESSAGE_LIST = 'messages';

/** One page of the tenant's conversations, newest first, filtered. */
export async function listConversationsPage(db: Queryable, tenantId: string, filters: ConversationFilters) {
  const limit = filters.limit ?? DEFAULT_PAGE_SIZE;
  const range = parseCreatedRange(filters.from, filters.to);
  const rows = await listConversations(db, tenantId, {
    ...range,
    botId: filters.bot_id,
    channel: filters.channel,
    senderId: filters.sender_id,
    status: filters.status,
    isTest: filters.kind === undefined || filters.kind === 'all' ? undefined : filters.kind === 'test',
    after: decodeTimeCursor(CONVERSATION_LIST, filters.cursor),
    limit: limit + 1,
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(CONVERSATION_LIST, { at: last.cursor_at, id: last.id }),
  );
  return { data: page.data.map(serializeConversation), next_cursor: page.next_cursor };
}

/**
 * A conversation with one page of its messages, oldest first. The message cursor is bound
 * to the conversation, so it cannot be replayed against another one.
 */
export async function getConversationDetail(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  query: { limit?: number; cursor?: string },
) {
  const conversation = await findConversation(db, tenantId, conversationId);
  if (!conversation) throw notFound('Conversation');
  const list = `${MESSAGE_LIST}:${conversation.id}`;
  const limit = query.limit ?? DEFAULT_MESSAGE_PAGE;
  const rows = await listMessages(db, tenantId, conversation.id, {
    afterSeq: decodeSeqCursor(list, query.cursor),
    limit: limit + 1,
  });
  const page = splitPage(rows, limit, (last) => encodeSeqCursor(list, last.seq));
  return {
    ...serializeConversation(conversation),
    messages: page.data.map(serializeMessage),
    next_cursor: page.next_cursor,
  };
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

export function serializeConversation(row: ConversationRow): ConversationResponse {
  return {
    id: row.id,
    bot_id: row.bot_id,
    channel: row.channel,
    sender_id: row.sender_id,
    metadata: row.metadata ?? {},
    status: row.status,
    message_count: row.message_count,
    last_message_at: iso(row.last_message_at),
    ended_at: iso(row.ended_at),
    end_reason: row.end_reason,
    escalated_at: iso(row.escalated_at),
    escalation_reason: row.escalation_reason,
    rating: row.rating,
    rating_comment: row.rating_comment,
    rated_at: iso(row.rated_at),
    contact_id: row.contact_id,
    is_test: row.is_test ?? false,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function serializeMessage(row: MessageRow): MessageResponse {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    channel: row.channel,
    tokens: row.tokens,
    model: row.model,
    knowledge_used: row.knowledge_used,
    created_at: row.created_at.toISOString(),
  };
}
