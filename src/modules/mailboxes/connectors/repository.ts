/**
 * The statements of the connectors: received mails (email_inbound) and the replies sent from a
 * mailbox (email_outbound). inbound.ts and sender.ts decide what runs when.
 */
import { queryOne, type Queryable } from '../../../db/database.js';

export interface StoredInbound {
  id: string;
  status: string;
  from_address: string | null;
}

/** A received mail as stored, its texts already cut to the columns' limits. */
export interface InboundInsert {
  tenantId: string;
  mailboxId: string;
  messageId: string;
  bodyHash: string;
  from: string | null;
  subject: string | null;
  inReplyTo: string | null;
  references: string[];
  text: string;
  providerId: string | null;
  raw: Buffer | null;
}

/** Stores the mail unless it is stored already (same mailbox, Message-ID and body); the new row or nothing. */
export function insertInbound(db: Queryable, mail: InboundInsert): Promise<StoredInbound | undefined> {
  return queryOne<StoredInbound>(
    db,
    `INSERT INTO email_inbound (tenant_id, mailbox_id, message_id, body_hash, from_address, subject, in_reply_to,
       references_ids, body_text, provider_id, raw)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (mailbox_id, message_id, body_hash) DO NOTHING
     RETURNING id, status, from_address`,
    [
      mail.tenantId,
      mail.mailboxId,
      mail.messageId,
      mail.bodyHash,
      mail.from,
      mail.subject,
      mail.inReplyTo,
      mail.references,
      mail.text,
      mail.providerId,
      mail.raw,
    ],
  );
}

/** Who the mail is answered to besides From: Reply-To's first address and the Cc kept. */
export async function setRecipients(
  db: Queryable,
  id: string,
  replyTo: string | null,
  cc: { name: string; address: string }[],
): Promise<void> {
  await db.query('UPDATE email_inbound SET reply_to = $2, cc_addresses = $3 WHERE id = $1', [
    id,
    replyTo,
    JSON.stringify(cc),
  ]);
}

export function findInbound(
  db: Queryable,
  mailboxId: string,
  messageId: string,
  bodyHash: string,
): Promise<StoredInbound | undefined> {
  return queryOne<StoredInbound>(
    db,
    'SELECT id, status, from_address FROM email_inbound WHERE mailbox_id = $1 AND message_id = $2 AND body_hash = $3',
    [mailboxId, messageId, bodyHash],
  );
}

/** Settles a received mail as skipped or failed (only while it is still `received`). */
export async function settleInbound(
  db: Queryable,
  id: string,
  status: 'skipped' | 'failed',
  reason: string,
  conversationId: string | null,
): Promise<void> {
  await db.query(
    `UPDATE email_inbound SET status = $2, skip_reason = $3, processed_at = now(),
       conversation_id = COALESCE($4::uuid, conversation_id)
     WHERE id = $1 AND status = 'received'`,
    [id, status, reason, conversationId],
  );
}

/** The bot's replies from this mailbox to this address in the last hour and the last day. */
export function countAutomatedReplies(
  db: Queryable,
  mailboxId: string,
  to: string,
): Promise<{ hour: number; day: number } | undefined> {
  return queryOne<{ hour: number; day: number }>(
    db,
    `SELECT count(*) FILTER (WHERE created_at > now() - interval '1 hour')::int AS hour, count(*)::int AS day
     FROM email_outbound
     WHERE mailbox_id = $1 AND lower(to_address) = $2 AND automated AND created_at > now() - interval '1 day'`,
    [mailboxId, to],
  );
}

/** Stripped texts of the sender's other mails to this mailbox answered within `withinSeconds`. */
export function recentlyAnsweredTexts(
  db: Queryable,
  mailboxId: string,
  from: string,
  exceptId: string,
  withinSeconds: number,
): Promise<{ stripped_text: string }[]> {
  return db.query<{ stripped_text: string }>(
    `SELECT stripped_text FROM email_inbound
     WHERE mailbox_id = $1 AND lower(coalesce(reply_to, from_address)) = $2 AND status = 'answered' AND id <> $3
       AND processed_at > now() - make_interval(secs => $4)`,
    [mailboxId, from, exceptId, withinSeconds],
  );
}

export interface KnownMessageRow {
  message_id: string;
  conversation_id: string;
  status: string;
  participants: string[];
}

/**
 * Our replies and received mails with these (bracketed) Message-IDs in the tenant's
 * conversations with the bot, each with the conversation's status and participants.
 */
export function findKnownMessages(
  db: Queryable,
  tenantId: string,
  botId: string,
  bracketedIds: string[],
): Promise<KnownMessageRow[]> {
  return db.query<KnownMessageRow>(
    `SELECT t.message_id, c.id AS conversation_id, c.status,
            ARRAY(SELECT lower(c.sender_id) WHERE c.sender_id IS NOT NULL
                  UNION SELECT lower(coalesce(i.reply_to, i.from_address)) FROM email_inbound i
                  WHERE i.conversation_id = c.id AND i.from_address IS NOT NULL) AS participants
     FROM (
       SELECT conversation_id, message_id FROM email_outbound
       WHERE mailbox_id IN (SELECT id FROM mailboxes WHERE tenant_id = $1 AND bot_id = $3) AND message_id = ANY($2::text[])
       UNION
       SELECT conversation_id, message_id FROM email_inbound
       WHERE mailbox_id IN (SELECT id FROM mailboxes WHERE tenant_id = $1 AND bot_id = $3) AND message_id = ANY($2::text[])
     ) t
     JOIN conversations c ON c.id = t.conversation_id
     WHERE c.tenant_id = $1 AND c.bot_id = $3`,
    [tenantId, bracketedIds, botId],
  );
}

/** A reply as written to email_outbound. */
export interface OutboundInsert {
  tenantId: string;
  mailboxId: string;
  conversationId: string;
  inboundId: string;
  messageId: string;
  to: string | null;
  toName: string | null;
  cc: { name: string; address: string }[];
  subject: string;
  inReplyTo: string;
  references: string[];
  text: string;
}

/** The parameters $1 to $12 of both inserts into email_outbound. */
function outboundParams(reply: OutboundInsert): unknown[] {
  return [
    reply.tenantId,
    reply.mailboxId,
    reply.conversationId,
    reply.inboundId,
    reply.messageId,
    reply.to,
    reply.subject,
    reply.inReplyTo,
    reply.references,
    reply.text,
    reply.toName,
    JSON.stringify(reply.cc),
  ];
}

/** Writes the bot's reply (automated); returns its id. */
export async function insertAutomatedOutbound(tx: Queryable, reply: OutboundInsert): Promise<string> {
  const outbound = await queryOne<{ id: string }>(
    tx,
    `INSERT INTO email_outbound (tenant_id, mailbox_id, conversation_id, inbound_id, message_id, to_address, subject,
           in_reply_to, references_ids, body_text, to_name, cc_addresses, automated)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, true) RETURNING id`,
    outboundParams(reply),
  );
  return outbound!.id;
}

export async function markInboundAnswered(tx: Queryable, id: string, conversationId: string): Promise<void> {
  await tx.query(
    `UPDATE email_inbound SET status = 'answered', conversation_id = $2, processed_at = now() WHERE id = $1`,
    [id, conversationId],
  );
}

/** Whether a mailbox of the tenant sent a mail with this Message-ID. */
export async function isOwnMessageId(db: Queryable, tenantId: string, messageId: string): Promise<boolean> {
  const own = await queryOne(
    db,
    `SELECT 1 FROM email_outbound WHERE mailbox_id IN (SELECT id FROM mailboxes WHERE tenant_id = $1)
       AND message_id = $2 LIMIT 1`,
    [tenantId, messageId],
  );
  return own !== undefined;
}

export async function setStrippedText(db: Queryable, id: string, text: string): Promise<void> {
  await db.query('UPDATE email_inbound SET stripped_text = $2 WHERE id = $1', [id, text]);
}

export async function setAttachmentNotes(db: Queryable, id: string, notes: unknown[]): Promise<void> {
  await db.query('UPDATE email_inbound SET attachments = $2 WHERE id = $1', [id, JSON.stringify(notes)]);
}

export interface OutboundRow {
  id: string;
  tenant_id: string;
  mailbox_id: string;
  inbound_id: string | null;
  message_id: string;
  to_address: string;
  subject: string;
  in_reply_to: string | null;
  references_ids: string[];
  body_text: string;
  to_name: string | null;
  cc_addresses: { name: string; address: string }[];
  automated: boolean;
  delivery_status: string;
  sent_at: Date | null;
  parent_provider_id: string | null;
}

const OUTBOUND_SELECT = `SELECT o.*, i.provider_id AS parent_provider_id
  FROM email_outbound o LEFT JOIN email_inbound i ON i.id = o.inbound_id`;

export function findOutbound(db: Queryable, tenantId: string, id: string): Promise<OutboundRow | undefined> {
  return queryOne<OutboundRow>(db, `${OUTBOUND_SELECT} WHERE o.tenant_id = $1 AND o.id = $2`, [tenantId, id]);
}

export function findOutboundByMessageId(
  db: Queryable,
  mailboxId: string,
  messageId: string,
): Promise<OutboundRow | undefined> {
  return queryOne<OutboundRow>(db, `${OUTBOUND_SELECT} WHERE o.mailbox_id = $1 AND o.message_id = $2`, [
    mailboxId,
    messageId,
  ]);
}

/** The conversation's latest received mail with a sender, and its mailbox's address. */
export interface LatestInboundRow {
  id: string;
  mailbox_id: string;
  message_id: string;
  subject: string | null;
  references_ids: string[];
  in_reply_to: string | null;
  /** Who the customer is: Reply-To's first address, else From. */
  from_address: string;
  cc_addresses: { name: string; address: string }[];
  address: string;
}

export function latestInboundOfConversation(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<LatestInboundRow | undefined> {
  return queryOne<LatestInboundRow>(
    db,
    `SELECT i.id, i.mailbox_id, i.message_id, i.subject, i.references_ids, i.in_reply_to,
       coalesce(i.reply_to, i.from_address) AS from_address, i.cc_addresses, m.address
     FROM email_inbound i JOIN mailboxes m ON m.id = i.mailbox_id
     WHERE i.tenant_id = $1 AND i.conversation_id = $2 AND i.from_address IS NOT NULL
     ORDER BY i.received_at DESC LIMIT 1`,
    [tenantId, conversationId],
  );
}

export function findMessageContent(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  messageId: string,
): Promise<{ content: string } | undefined> {
  return queryOne<{ content: string }>(
    db,
    `SELECT content FROM messages WHERE tenant_id = $1 AND conversation_id = $2 AND id = $3`,
    [tenantId, conversationId, messageId],
  );
}

/** Writes a person's reply (not automated) unless its Message-ID is stored already. */
export async function insertPersonOutbound(db: Queryable, reply: OutboundInsert): Promise<void> {
  await db.query(
    `INSERT INTO email_outbound (tenant_id, mailbox_id, conversation_id, inbound_id, message_id, to_address, subject,
       in_reply_to, references_ids, body_text, to_name, cc_addresses, automated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, false)
     ON CONFLICT (mailbox_id, message_id) DO NOTHING`,
    outboundParams(reply),
  );
}

export async function markOutboundSent(
  tx: Queryable,
  id: string,
  detail: string | null = null,
): Promise<void> {
  await tx.query(
    `UPDATE email_outbound SET sent_at = now(), delivery_status = 'sent', delivery_detail = $2, delivery_at = now()
     WHERE id = $1 AND sent_at IS NULL`,
    [id, detail],
  );
}

/** Records a deferred (4xx, no answer) or given-up attempt with the server's words; a sent or bounced reply stays. */
export async function markOutboundAttempt(
  tx: Queryable,
  id: string,
  status: 'deferred' | 'failed',
  detail: string | null,
): Promise<void> {
  await tx.query(
    `UPDATE email_outbound SET delivery_status = $2, delivery_detail = $3, delivery_at = now()
     WHERE id = $1 AND sent_at IS NULL AND delivery_status IN ('queued', 'deferred')`,
    [id, status, detail?.slice(0, 1000) ?? null],
  );
}

/**
 * A delivery report came back referring to one of our Message-IDs: that reply bounced. Only a
 * reply of this tenant's mailboxes is marked; the id of the reply, or nothing.
 */
export function markOutboundBounced(
  db: Queryable,
  tenantId: string,
  messageIds: string[],
  detail: string,
): Promise<{ id: string; to_address: string } | undefined> {
  return queryOne<{ id: string; to_address: string }>(
    db,
    `UPDATE email_outbound SET delivery_status = 'bounced', delivery_detail = $3, delivery_at = now()
     WHERE id = (SELECT id FROM email_outbound WHERE tenant_id = $1 AND message_id = ANY($2::text[])
                 ORDER BY created_at DESC LIMIT 1)
     RETURNING id, to_address`,
    [tenantId, messageIds, detail.slice(0, 1000)],
  );
}

/** A received mail with what the second chance and the download need. */
export interface StoredMailRow {
  id: string;
  mailbox_id: string;
  message_id: string;
  status: string;
  from_address: string | null;
  reply_to: string | null;
  subject: string | null;
  in_reply_to: string | null;
  references_ids: string[];
  body_text: string;
  stripped_text: string;
  conversation_id: string | null;
  second_chance: string | null;
  provider_id: string | null;
  raw: Buffer | Uint8Array | null;
  received_at: Date;
}

export function findStoredMail(
  db: Queryable,
  tenantId: string,
  mailboxId: string,
  id: string,
): Promise<StoredMailRow | undefined> {
  return queryOne<StoredMailRow>(
    db,
    `SELECT id, mailbox_id, message_id, status, from_address, reply_to, subject, in_reply_to, references_ids,
       body_text, stripped_text, conversation_id, second_chance, provider_id, raw, received_at
     FROM email_inbound WHERE tenant_id = $1 AND mailbox_id = $2 AND id = $3`,
    [tenantId, mailboxId, id],
  );
}

/** Takes a skipped or failed mail back for a forced answer; false when it is not (or no longer) skipped. */
export async function reopenForAnswer(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE email_inbound SET status = 'received', skip_reason = NULL, second_chance = 'answered'
     WHERE id = $1 AND status IN ('skipped', 'failed') AND second_chance IS NULL RETURNING id`,
    [id],
  );
  return rows.length > 0;
}

/** Marks a skipped or failed mail as given to the inbox in this conversation; false when it was taken already. */
export async function markSentToInbox(tx: Queryable, id: string, conversationId: string): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE email_inbound SET second_chance = 'inbox', conversation_id = $2
     WHERE id = $1 AND status IN ('skipped', 'failed') AND second_chance IS NULL RETURNING id`,
    [id, conversationId],
  );
  return rows.length > 0;
}

/** The customer's mail as a message of the conversation (for the people in the inbox). */
export async function insertCustomerMessage(
  tx: Queryable,
  input: { tenantId: string; botId: string; conversationId: string; content: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, channel) VALUES ($1, $2, $3, 'user', $4, 'email')`,
    [input.tenantId, input.conversationId, input.botId, input.content],
  );
}

/** A delay report for one of our replies: deferred with the server's words, unless it bounced already. */
export async function markOutboundDelayed(
  db: Queryable,
  tenantId: string,
  messageIds: string[],
  detail: string,
): Promise<void> {
  await db.query(
    `UPDATE email_outbound SET delivery_status = 'deferred', delivery_detail = $3, delivery_at = now()
     WHERE tenant_id = $1 AND message_id = ANY($2::text[]) AND delivery_status IN ('queued', 'sent', 'deferred')`,
    [tenantId, messageIds, detail.slice(0, 1000)],
  );
}
