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
import { countCustomerMessage, handOverForMail, insertWaitingConversation } from './repository.js';
import {
  deleteReview,
  findConversation,
  listConversations,
  listMessages,
  listReviewMessages,
  saveReview,
  type ConversationRow,
  type MessageRow,
  type ReviewMessageRow,
} from './repository.js';
import {
  DEFAULT_MESSAGE_PAGE,
  type ConversationFilters,
  type ConversationResponse,
  type MessageResponse,
  type ReviewMessageResponse,
} from './schema.js';

/** Whether the dashboard's test chat held an exchange with the bot. */

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
    rating: filters.rating,
    review: filters.review,
    handedOver: filters.handed_over,
    noKnowledge: filters.no_knowledge === true ? true : undefined,
    after: decodeTimeCursor(CONVERSATION_LIST, filters.cursor),
    limit: limit + 1,
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(CONVERSATION_LIST, { at: last.cursor_at, id: last.id }),
  );
  return { data: page.data.map(serializeConversation), next_cursor: page.next_cursor };
}

/**
 * A conversation with one page of its messages, oldest first, each message read by `read` and
 * shaped by `serialize`. The message cursor is bound to the conversation, so it cannot be
 * replayed against another one.
 */
async function conversationWithMessages<Row extends { seq: number }, Out>(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  query: { limit?: number; cursor?: string },
  read: (
    db: Queryable,
    tenantId: string,
    conversationId: string,
    page: { afterSeq?: number; limit: number },
  ) => Promise<Row[]>,
  serialize: (row: Row) => Out,
) {
  const conversation = await findConversation(db, tenantId, conversationId);
  if (!conversation) throw notFound('Conversation');
  const list = `${MESSAGE_LIST}:${conversation.id}`;
  const limit = query.limit ?? DEFAULT_MESSAGE_PAGE;
  const rows = await read(db, tenantId, conversation.id, {
    afterSeq: decodeSeqCursor(list, query.cursor),
    limit: limit + 1,
  });
  const page = splitPage(rows, limit, (last) => encodeSeqCursor(list, last.seq));
  return {
    ...serializeConversation(conversation),
    messages: page.data.map(serialize),
    next_cursor: page.next_cursor,
  };
}

/** A conversation with one page of its messages (the API's view). */
export function getConversationDetail(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  query: { limit?: number; cursor?: string },
) {
  return conversationWithMessages(db, tenantId, conversationId, query, listMessages, serializeMessage);
}

/**
 * The dashboard's review of a conversation: its messages with what each bot reply carried
 * (sources and scores, actions, blocks, hand-over, tokens, model) and staff's verdicts.
 */
export function getConversationReview(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  query: { limit?: number; cursor?: string },
) {
  return conversationWithMessages(
    db,
    tenantId,
    conversationId,
    query,
    listReviewMessages,
    serializeReviewMessage,
  );
}

/** Staff rate a bot reply good or bad with a note; another tenant's reply is a 404. */
export async function reviewReply(
  db: Queryable,
  user: { tenantId: string; id: string },
  conversationId: string,
  messageId: string,
  body: { verdict: 'good' | 'bad'; note?: string | null },
): Promise<ReviewMessageResponse> {
  const note = body.note?.trim() ? body.note.trim() : null;
  const saved = await saveReview(db, user.tenantId, conversationId, messageId, {
    verdict: body.verdict,
    note,
    userId: user.id,
  });
  if (!saved) throw notFound('Message');
  return reviewedMessage(db, user.tenantId, conversationId, messageId);
}

/** Takes staff's verdict on a reply back. */
export async function removeReview(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  messageId: string,
): Promise<ReviewMessageResponse> {
  if (!(await deleteReview(db, tenantId, conversationId, messageId))) throw notFound('Message');
  return reviewedMessage(db, tenantId, conversationId, messageId);
}

async function reviewedMessage(db: Queryable, tenantId: string, conversationId: string, messageId: string) {
  const [row] = await listReviewMessages(db, tenantId, conversationId, { limit: 1, messageId });
  if (!row) throw notFound('Message');
  return serializeReviewMessage(row);
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

export function serializeReviewMessage(row: ReviewMessageRow): ReviewMessageResponse {
  return {
    ...serializeMessage(row),
    author_user_id: row.author_user_id,
    author_name: row.author_name,
    sources: (row.sources ?? []) as ReviewMessageResponse['sources'],
    actions: row.actions ?? [],
    blocks: row.blocks ?? [],
    handover_reason: row.handover_reason,
    review:
      row.review_verdict && row.reviewed_at
        ? {
            verdict: row.review_verdict,
            note: row.review_note,
            reviewed_by: row.reviewed_by,
            reviewed_by_name: row.reviewed_by_name,
            reviewed_at: row.reviewed_at.toISOString(),
          }
        : null,
  };
}

/**
 * A mail the team sends to the inbox: its open conversation is handed over to the people
 * (waiting, nobody assigned), or a new e-mail conversation waits for them; the id.
 */
export async function waitInInbox(
  tx: Queryable,
  input: {
    tenantId: string;
    botId: string;
    conversationId: string | null;
    senderId: string;
    question: string;
    metadata: object;
  },
): Promise<string> {
  const joined = input.conversationId
    ? await handOverForMail(tx, input.tenantId, input.conversationId, input.question)
    : undefined;
  return joined ?? insertWaitingConversation(tx, input);
}

/** Counts a customer's message added to a conversation outside the chat's exchange. */
export function countAddedCustomerMessage(tx: Queryable, tenantId: string, conversationId: string) {
  return countCustomerMessage(tx, tenantId, conversationId);
}
