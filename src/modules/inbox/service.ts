/**
 * The inbox: people take over conversations the bot handed over (or take them away from the
 * bot), answer them, note things for colleagues and give them back or close them. Every action
 * locks the conversation, asks the state machine (conversations/handover.ts) and writes its
 * change, the message and the message's delivery (outbox) in one transaction; the live event
 * goes out after the commit. See docs/inbox.md.
 */
import type { AppContext } from '../../shared/context.js';
import type { Queryable } from '../../db/database.js';
import type { AppError } from '../../http/errors.js';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.js';
import { type AuthenticatedUser, mailerFor } from '../auth/index.js';
import {
  decide,
  stateOf,
  type HandoverAction,
  type HandoverState,
  insertStaffMessage,
  writeHandoverState,
  publishInboxChange,
  publishMessage,
} from '../conversations/index.js';
import { enqueueEvent } from '../webhooks/index.js';
import { channelOf } from '../channels/index.js';
import { conversationRefusals } from '../chat/index.js';
import { INBOX_PAGE, TRANSCRIPT_LIMIT } from './limits.js';
import { decodeTimeCursor, encodeTimeCursor, splitPage } from '../../shared/pagination.js';
import * as repo from './repository.js';
import { visitorOfConversation } from './visitor.js';

type Ctx = Pick<AppContext, 'db' | 'coordination' | 'config' | 'deliveries'> & {
  log?: { warn(obj: object, msg: string): void };
};

const iso = (value: Date | null) => (value ? value.toISOString() : null);

export function serializeInboxConversation(row: repo.InboxConversationRow) {
  return {
    id: row.id,
    bot_id: row.bot_id,
    bot_name: row.bot_name,
    channel: row.channel,
    sender_id: row.sender_id,
    customer_name: row.customer_name,
    state: stateOf(row),
    status: row.status,
    assigned_user_id: row.assigned_user_id,
    assigned_user_name: row.assigned_user_name,
    handover_reason: row.handover_reason,
    handover_at: iso(row.handover_at),
    handover_question: row.handover_question,
    is_test: row.is_test,
    message_count: row.message_count,
    last_message_at: iso(row.last_message_at),
    last_message: row.last_message,
    unread: row.unread,
    created_at: row.created_at.toISOString(),
  };
}

export async function listInboxPage(
  db: Queryable,
  user: AuthenticatedUser,
  query: { view?: 'all' | 'mine' | 'unassigned'; bot_id?: string; limit?: number; cursor?: string },
) {
  const limit = query.limit ?? INBOX_PAGE;
  const rows = await repo.listInbox(db, user.tenantId, {
    view: query.view ?? 'all',
    userId: user.id,
    botId: query.bot_id,
    // The cursor names its view and bot, so it cannot be replayed against another list.
    after: decodeTimeCursor(inboxList(query), query.cursor),
    limit: limit + 1,
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(inboxList(query), { at: last.cursor_at, id: last.id }),
  );
  return { data: page.data.map(serializeInboxConversation), next_cursor: page.next_cursor };
}

const inboxList = (query: { view?: string; bot_id?: string }) =>
  `inbox:${query.view ?? 'all'}:${query.bot_id ?? ''}`;

export async function inboxDetail(db: Queryable, user: AuthenticatedUser, id: string) {
  const tenantId = user.tenantId;
  const row = await repo.findInboxConversation(db, tenantId, user.id, id);
  if (!row) throw notFound('Conversation');
  const [messages, notes, refusals] = await Promise.all([
    repo.listTranscript(db, tenantId, id, TRANSCRIPT_LIMIT),
    repo.listNotes(db, tenantId, id),
    conversationRefusals(db, tenantId, id, TRANSCRIPT_LIMIT),
  ]);
  return {
    ...serializeInboxConversation(row),
    messages: messages.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      author_user_id: m.author_user_id,
      author_name: m.author_name,
      from_person: m.author_user_id !== null,
      created_at: m.created_at.toISOString(),
    })),
    notes: notes.map(serializeNote),
    refusals,
    visitor: await visitorOfConversation(db, user.tenantId, row),
  };
}

function serializeNote(n: repo.NoteRow) {
  return {
    id: n.id,
    content: n.content,
    author_user_id: n.author_user_id,
    author_name: n.author_name,
    created_at: n.created_at.toISOString(),
  };
}

export function unreadCount(db: Queryable, user: AuthenticatedUser) {
  return repo.countUnread(db, user.tenantId, user.id).then((count) => ({ count }));
}

/** The refusal of the state machine as the API's error. */
function refusalError(refusal: string): AppError {
  switch (refusal) {
    case 'held_by_other':
      return conflict('A colleague holds this conversation', { code: 'conversation_held' });
    case 'closed':
      return conflict('The conversation is closed', { code: 'conversation_closed' });
    case 'not_handed_over':
      return conflict('The conversation is with the bot; take it over first', {
        code: 'conversation_with_bot',
      });
    default:
      return forbidden('Your role may not do this in the inbox', { code: 'permission_missing' });
  }
}

function text(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) {
    throw badRequest(`${field} must not be blank`, { code: 'field_blank', field });
  }
  return trimmed;
}

interface ActionResult<T> {
  state: HandoverState;
  changed: boolean;
  extra: T;
}

/**
 * One inbox action: locks the conversation, asks the state machine, writes the new state and
 * what `work` adds (in the same transaction), then publishes the change. Also the way of a
 * person's WhatsApp template message (messaging/template-service.ts).
 */
async function act<T>(
  ctx: Ctx,
  user: AuthenticatedUser,
  id: string,
  action: HandoverAction,
  options: { target?: string | null; work?: (tx: Queryable, row: LockedRow) => Promise<T> } = {},
): Promise<ActionResult<T | undefined>> {
  const result = await ctx.db.transaction(async (tx) => {
    const row = await repo.lockForInbox(tx, user.tenantId, id);
    if (!row) throw notFound('Conversation');
    const state = stateOf(row);
    const decision = decide(
      state,
      row.assigned_user_id,
      action,
      { kind: 'staff', userId: user.id, role: user.role },
      options.target ?? null,
    );
    if (!decision.ok) {
      // Closing a closed conversation changes nothing and is no error.
      if (decision.refusal === 'unchanged') return { state, changed: false, extra: undefined };
      throw refusalError(decision.refusal);
    }
    if (decision.changed) await writeState(tx, user.tenantId, id, state, decision.next, decision.assignee);
    const extra = options.work ? await options.work(tx, row) : undefined;
    return { state: decision.next, changed: decision.changed, extra };
  });
  if (result.changed) await publishInboxChange(ctx, user.tenantId, id, result.state);
  return result;
}

type LockedRow = NonNullable<Awaited<ReturnType<typeof repo.lockForInbox>>>;

async function writeState(
  tx: Queryable,
  tenantId: string,
  id: string,
  from: HandoverState,
  to: HandoverState,
  assignee: string | null,
): Promise<void> {
  const row = await writeHandoverState(tx, tenantId, id, { from, to, assignee });
  if (to === 'closed' && row) {
    await enqueueEvent(tx, tenantId, 'conversation.ended', {
      conversation_id: row.id,
      bot_id: row.bot_id,
      trigger: 'api',
      reason: 'closed_in_inbox',
      message_count: row.message_count,
      ended_at: row.ended_at,
    });
  }
}

const stateBody = async (db: Queryable, user: AuthenticatedUser, id: string) => {
  const row = await repo.findInboxConversation(db, user.tenantId, user.id, id);
  if (!row) throw notFound('Conversation');
  return serializeInboxConversation(row);
};

export async function claim(ctx: Ctx, user: AuthenticatedUser, id: string) {
  await act(ctx, user, id, 'claim');
  return stateBody(ctx.db, user, id);
}

export async function takeOver(ctx: Ctx, user: AuthenticatedUser, id: string) {
  await act(ctx, user, id, 'take_over');
  return stateBody(ctx.db, user, id);
}

export async function giveBack(ctx: Ctx, user: AuthenticatedUser, id: string) {
  await act(ctx, user, id, 'give_back');
  return stateBody(ctx.db, user, id);
}

export async function close(ctx: Ctx, user: AuthenticatedUser, id: string) {
  await act(ctx, user, id, 'close');
  return stateBody(ctx.db, user, id);
}

/** Assigns to a colleague (or, with null, back to "waiting"); the assignee may get an e-mail. */
export async function assign(ctx: Ctx, user: AuthenticatedUser, id: string, userId: string | null) {
  let assignee: { id: string; email: string } | undefined;
  if (userId !== null) {
    assignee = await repo.findAssignee(ctx.db, user.tenantId, userId);
    if (!assignee) {
      throw badRequest('user_id is not an active colleague who may answer in the inbox', {
        code: 'reference_unknown',
        field: 'user_id',
      });
    }
  }
  const result = await act(ctx, user, id, 'assign', { target: userId });
  if (result.changed && assignee && assignee.id !== user.id) void mailAssignee(ctx, assignee.email, id);
  return stateBody(ctx.db, user, id);
}

/** The optional e-mail to an assignee (SMTP_URL set); a failure is logged, never the request's. */
async function mailAssignee(ctx: Ctx, to: string, conversationId: string): Promise<void> {
  const send = mailerFor(ctx.config);
  if (!send) return;
  try {
    await send({
      to,
      subject: 'Parley: Ein Gespräch wurde Ihnen zugewiesen / A conversation was assigned to you',
      text: `Im Posteingang wartet ein Gespräch auf Sie (${conversationId}).\n\nA conversation waits for you in the inbox (${conversationId}).\n`,
    });
  } catch (error) {
    ctx.log?.warn({ err: error }, 'inbox assignment e-mail not sent');
  }
}

/**
 * A person's reply: stored as the assistant's message with its author, and its delivery queued
 * through the conversation's channel delivery (ctx.deliveries, the port the bot's replies leave
 * through) in the same transaction (send-once key per message). A channel may refuse it in
 * words first (messaging: opt-out, the 24-hour window): then nothing is stored.
 */
export async function reply(ctx: Ctx, user: AuthenticatedUser, id: string, body: { text: string }) {
  const content = text(body.text, 'text');
  return sendPersonMessage(ctx, user, id, async (_tx, row) => ({
    content,
    // The channel's delivery, the same port and outbox kind as the bot's replies on it.
    send: (tx, message) =>
      ctx.deliveries[channelOf(row.channel).kind].enqueue(tx, {
        tenantId: user.tenantId,
        botId: row.bot_id,
        conversationId: row.id,
        channel: row.channel,
        recipient: null,
        from: 'person',
        messageId: message.id,
        text: content,
        blocks: [],
        createdAt: message.created_at,
      }),
  }));
}

/**
 * A person's message into the conversation (a reply, a template): under the inbox's lock and
 * state machine, `prepare` checks what is sent and names its text; the message is stored (without
 * an Idempotency-Key, always), `send` queues it in the same transaction, the one who answers has
 * read what came before, and the message is announced after the commit.
 */
export async function sendPersonMessage(
  ctx: Ctx,
  user: AuthenticatedUser,
  id: string,
  prepare: (
    tx: Queryable,
    row: LockedRow,
  ) => Promise<{
    content: string;
    send: (tx: Queryable, message: { id: string; created_at: Date }) => Promise<void>;
  }>,
) {
  const result = await act(ctx, user, id, 'reply', {
    work: async (tx, row) => {
      const prepared = await prepare(tx, row);
      const message = (await insertStaffMessage(tx, user.tenantId, row, {
        role: 'assistant',
        content: prepared.content,
        authorUserId: user.id,
      }))!;
      await prepared.send(tx, message);
      await repo.markReadBy(tx, user.tenantId, id, user.id);
      return { ...message, content: prepared.content };
    },
  });
  const message = result.extra!;
  await publishMessage(ctx, user.tenantId, id, message.id);
  return {
    id: message.id,
    conversation_id: id,
    role: 'assistant' as const,
    content: message.content,
    author_user_id: user.id,
    created_at: message.created_at.toISOString(),
  };
}

export async function addNote(ctx: Ctx, user: AuthenticatedUser, id: string, body: { text: string }) {
  const content = text(body.text, 'text');
  const result = await act(ctx, user, id, 'note', {
    work: (tx) => repo.insertNote(tx, user.tenantId, id, user.id, content),
  });
  return serializeNote(result.extra!);
}

export async function markRead(db: Queryable, user: AuthenticatedUser, id: string) {
  if (!(await repo.markReadBy(db, user.tenantId, id, user.id))) throw notFound('Conversation');
  return { ok: true };
}

/** A customer's message while people hold the conversation: kept for them, the bot stays silent. */
export async function recordCustomerMessage(
  ctx: Ctx,
  tenantId: string,
  conversationId: string,
  content: string,
  idempotencyKey: string | null = null,
): Promise<{ id: string; created_at: Date } | undefined> {
  const stored = await ctx.db.transaction(async (tx) => {
    const row = await repo.lockForInbox(tx, tenantId, conversationId);
    if (!row || row.status !== 'handed_over') return undefined;
    const inserted = await insertStaffMessage(tx, tenantId, row, {
      role: 'user',
      content,
      authorUserId: null,
      idempotencyKey,
    });
    if (inserted) return { ...inserted, fresh: true };
    // A repeated request (same Idempotency-Key) finds its message stored already.
    if (!idempotencyKey) return undefined;
    const earlier = await repo.messageByKey(tx, tenantId, conversationId, idempotencyKey);
    return earlier ? { ...earlier, fresh: false } : undefined;
  });
  if (!stored) return undefined;
  if (stored.fresh) await publishMessage(ctx, tenantId, conversationId, stored.id);
  return { id: stored.id, created_at: stored.created_at };
}
