import { queryOne, type Queryable } from '../../db/database.js';
import type { Static } from '@sinclair/typebox';
import type { ChatBlockSchema } from '../chat/index.js';
import type { BusinessHours } from './business-hours.js';

type ChatBlock = Static<typeof ChatBlockSchema>;

export interface WidgetTheme {
  primary_color?: string;
  text_color?: string;
  background_color?: string;
  position?: 'bottom-right' | 'bottom-left';
  greeting?: string;
  avatar_url?: string;
}

export interface WidgetSettingsRow {
  bot_id: string;
  tenant_id: string;
  enabled: boolean;
  publishable_key: string;
  allowed_origins: string[];
  verified_only: boolean;
  identity_secret: string | null;
  share_link_enabled: boolean;
  language: 'de' | 'en';
  theme: WidgetTheme;
  daily_message_budget: number;
  business_hours: BusinessHours | null;
  created_at: Date;
  updated_at: Date;
}

export interface WidgetSettingsFields {
  enabled: boolean;
  allowed_origins: string[];
  verified_only: boolean;
  share_link_enabled: boolean;
  language: 'de' | 'en';
  theme: WidgetTheme;
  daily_message_budget: number;
  business_hours: BusinessHours | null;
}

const COLUMNS = `bot_id, tenant_id, enabled, publishable_key, allowed_origins, verified_only, identity_secret,
  share_link_enabled, language, theme, daily_message_budget, business_hours, created_at, updated_at`;

export function findSettings(
  db: Queryable,
  tenantId: string,
  botId: string,
): Promise<WidgetSettingsRow | undefined> {
  return queryOne(db, `SELECT ${COLUMNS} FROM widget_settings WHERE tenant_id = $1 AND bot_id = $2`, [
    tenantId,
    botId,
  ]);
}

/** The settings a publishable key belongs to, with the bot's name (any tenant: the key names it). */
export function findByPublishableKey(
  db: Queryable,
  publishableKey: string,
): Promise<(WidgetSettingsRow & { bot_name: string }) | undefined> {
  return queryOne(
    db,
    `SELECT ${COLUMNS.replace(/(\w+)/g, 'w.$1')}, b.name AS bot_name
     FROM widget_settings w JOIN bots b ON b.id = w.bot_id
     WHERE w.publishable_key = $1`,
    [publishableKey],
  );
}

/**
 * The settings of a bot whose share link is on, with the bot's name (any tenant: the hosted page
 * /c/<bot> is public); undefined when the bot is unknown or its share link is off.
 */
export function findShared(
  db: Queryable,
  botId: string,
): Promise<(WidgetSettingsRow & { bot_name: string }) | undefined> {
  return queryOne(
    db,
    `SELECT ${COLUMNS.replace(/(\w+)/g, 'w.$1')}, b.name AS bot_name
     FROM widget_settings w JOIN bots b ON b.id = w.bot_id
     WHERE w.bot_id = $1 AND w.share_link_enabled`,
    [botId],
  );
}

/** Creates the bot's settings with defaults when there are none yet; returns them. */
export async function ensureSettings(
  db: Queryable,
  tenantId: string,
  botId: string,
  newPublishableKey: string,
): Promise<WidgetSettingsRow> {
  await db.query(
    `INSERT INTO widget_settings (bot_id, tenant_id, publishable_key) VALUES ($1, $2, $3)
     ON CONFLICT (bot_id) DO NOTHING`,
    [botId, tenantId, newPublishableKey],
  );
  return (await findSettings(db, tenantId, botId))!;
}

export async function updateSettings(
  db: Queryable,
  tenantId: string,
  botId: string,
  fields: Partial<WidgetSettingsFields>,
): Promise<WidgetSettingsRow | undefined> {
  const sets: string[] = [];
  const params: unknown[] = [tenantId, botId];
  for (const [column, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const json = column === 'theme' || column === 'business_hours';
    params.push(json ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}${json ? '::jsonb' : ''}`);
  }
  sets.push('updated_at = now()');
  return queryOne(
    db,
    `UPDATE widget_settings SET ${sets.join(', ')} WHERE tenant_id = $1 AND bot_id = $2 RETURNING ${COLUMNS}`,
    params,
  );
}

export function setPublishableKey(
  db: Queryable,
  tenantId: string,
  botId: string,
  key: string,
): Promise<WidgetSettingsRow | undefined> {
  return queryOne(
    db,
    `UPDATE widget_settings SET publishable_key = $3, updated_at = now()
     WHERE tenant_id = $1 AND bot_id = $2 RETURNING ${COLUMNS}`,
    [tenantId, botId, key],
  );
}

export function setIdentitySecret(
  db: Queryable,
  tenantId: string,
  botId: string,
  encrypted: string,
): Promise<WidgetSettingsRow | undefined> {
  return queryOne(
    db,
    `UPDATE widget_settings SET identity_secret = $3, updated_at = now()
     WHERE tenant_id = $1 AND bot_id = $2 RETURNING ${COLUMNS}`,
    [tenantId, botId, encrypted],
  );
}

/**
 * Counts one message against the bot's daily budget (UTC day). False when the budget is used up
 * (nothing counted).
 */
export async function countDailyMessage(db: Queryable, botId: string, budget: number): Promise<boolean> {
  if (budget <= 0) return false;
  const row = await queryOne<{ messages: number }>(
    db,
    `INSERT INTO widget_daily_usage AS u (tenant_id, bot_id, day, messages)
     SELECT b.tenant_id, b.id, (now() AT TIME ZONE 'UTC')::date, 1 FROM bots b WHERE b.id = $1
     ON CONFLICT (bot_id, day) DO UPDATE SET messages = u.messages + 1 WHERE u.messages < $2
     RETURNING messages`,
    [botId, budget],
  );
  return row !== undefined;
}

export interface VisitorConversation {
  id: string;
  status: 'active' | 'ended' | 'handed_over';
  created_at: Date;
}

/** The visitor's open (active or handed over) widget conversation with the bot, newest first. */
export function findOpenConversation(
  db: Queryable,
  tenantId: string,
  botId: string,
  visitorId: string,
): Promise<VisitorConversation | undefined> {
  return queryOne(
    db,
    `SELECT id, status, created_at FROM conversations
     WHERE tenant_id = $1 AND bot_id = $2 AND sender_id = $3 AND channel = 'widget'
       AND status IN ('active', 'handed_over')
     ORDER BY created_at DESC LIMIT 1`,
    [tenantId, botId, visitorId],
  );
}

export function findVisitorConversation(
  db: Queryable,
  tenantId: string,
  botId: string,
  visitorId: string,
  conversationId: string,
): Promise<VisitorConversation | undefined> {
  return queryOne(
    db,
    `SELECT id, status, created_at FROM conversations
     WHERE tenant_id = $1 AND bot_id = $2 AND sender_id = $3 AND channel = 'widget' AND id = $4`,
    [tenantId, botId, visitorId, conversationId],
  );
}

export interface TranscriptRow {
  id: string;
  seq: number;
  role: string;
  content: string;
  /** The interactive blocks a bot reply showed; null when none. */
  blocks: ChatBlock[] | null;
  /** The person who wrote a reply from the inbox (null for the bot's and the visitor's). */
  author_user_id: string | null;
  /** That person's display name: the first name, else the full name. */
  author_name: string | null;
  /** That person's picture (https), null when none. */
  author_avatar_url: string | null;
  created_at: Date;
}

const TRANSCRIPT_COLUMNS = `m.id, m.seq::int AS seq, m.role, m.content, m.blocks, m.author_user_id,
  coalesce(nullif(trim(u.first_name), ''), nullif(trim(concat_ws(' ', u.first_name, u.last_name)), '')) AS author_name,
  u.avatar_url AS author_avatar_url, m.created_at`;

/** Messages of a conversation in order; after a message id when given (resume). */
export async function transcript(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  afterMessageId?: string,
): Promise<TranscriptRow[]> {
  return db.query<TranscriptRow>(
    `SELECT ${TRANSCRIPT_COLUMNS} FROM messages m LEFT JOIN users u ON u.id = m.author_user_id
     WHERE m.tenant_id = $1 AND m.conversation_id = $2
       AND ($3::uuid IS NULL OR m.seq > coalesce((SELECT seq FROM messages WHERE id = $3 AND conversation_id = $2), 0))
     ORDER BY m.seq LIMIT 500`,
    [tenantId, conversationId, afterMessageId ?? null],
  );
}

export function findMessage(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  messageId: string,
): Promise<TranscriptRow | undefined> {
  return queryOne(
    db,
    `SELECT ${TRANSCRIPT_COLUMNS} FROM messages m LEFT JOIN users u ON u.id = m.author_user_id
     WHERE m.tenant_id = $1 AND m.conversation_id = $2 AND m.id = $3`,
    [tenantId, conversationId, messageId],
  );
}

/** A visitor's widget conversations with a bot (export and deletion). */
export function visitorConversations(
  db: Queryable,
  tenantId: string,
  botId: string,
  visitorId: string,
): Promise<(VisitorConversation & { metadata: unknown })[]> {
  return db.query(
    `SELECT id, status, created_at, metadata FROM conversations
     WHERE tenant_id = $1 AND bot_id = $2 AND sender_id = $3 AND channel = 'widget'
     ORDER BY created_at`,
    [tenantId, botId, visitorId],
  );
}

/** Whether an enabled widget lists the origin (CORS preflight). */
export async function anyWidgetAllows(db: Queryable, origin: string): Promise<boolean> {
  const rows = await db.query(
    'SELECT 1 FROM widget_settings WHERE enabled AND $1 = ANY(allowed_origins) LIMIT 1',
    [origin],
  );
  return rows.length > 0;
}

/** The id of the conversation's last message (of the role when given), or undefined. */
export async function lastMessageId(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  role?: 'assistant',
): Promise<string | undefined> {
  const row = await queryOne<{ id: string }>(
    db,
    `SELECT id FROM messages WHERE tenant_id = $1 AND conversation_id = $2 AND ($3::text IS NULL OR role = $3)
     ORDER BY seq DESC LIMIT 1`,
    [tenantId, conversationId, role ?? null],
  );
  return row?.id;
}

export interface VisitorContextFields {
  page_url: string | null;
  page_title: string | null;
  language: string | null;
  user_agent: string | null;
}

/** Keeps what the widget last told of the visitor of a conversation (page, language, browser). */
export async function saveVisitorContext(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  fields: VisitorContextFields,
): Promise<void> {
  await db.query(
    `INSERT INTO widget_visitor_context (conversation_id, tenant_id, page_url, page_title, language, user_agent)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (conversation_id) DO UPDATE SET page_url = coalesce(EXCLUDED.page_url, widget_visitor_context.page_url),
       page_title = coalesce(EXCLUDED.page_title, widget_visitor_context.page_title),
       language = coalesce(EXCLUDED.language, widget_visitor_context.language),
       user_agent = coalesce(EXCLUDED.user_agent, widget_visitor_context.user_agent), updated_at = now()`,
    [conversationId, tenantId, fields.page_url, fields.page_title, fields.language, fields.user_agent],
  );
}

export function findVisitorContext(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<(VisitorContextFields & { updated_at: Date }) | undefined> {
  return queryOne(
    db,
    `SELECT page_url, page_title, language, user_agent, updated_at FROM widget_visitor_context
     WHERE tenant_id = $1 AND conversation_id = $2`,
    [tenantId, conversationId],
  );
}

/** The address a visitor left for a person's reply by e-mail (replaced by a newer one). */
export async function saveReplyAddress(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  email: string,
): Promise<void> {
  await db.query(
    `INSERT INTO widget_reply_addresses (conversation_id, tenant_id, email) VALUES ($1, $2, $3)
     ON CONFLICT (conversation_id) DO UPDATE SET email = EXCLUDED.email, created_at = now()`,
    [conversationId, tenantId, email],
  );
}

export async function findReplyAddress(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<string | undefined> {
  const row = await queryOne<{ email: string }>(
    db,
    'SELECT email FROM widget_reply_addresses WHERE tenant_id = $1 AND conversation_id = $2',
    [tenantId, conversationId],
  );
  return row?.email;
}

/** The visitor's latest widget conversation with the bot (also an ended one), newest first. */
export function findLatestConversation(
  db: Queryable,
  tenantId: string,
  botId: string,
  visitorId: string,
): Promise<(VisitorConversation & { rating: number | null; handover_at: Date | null }) | undefined> {
  return queryOne(
    db,
    `SELECT id, status, created_at, rating, handover_at FROM conversations
     WHERE tenant_id = $1 AND bot_id = $2 AND sender_id = $3 AND channel = 'widget'
     ORDER BY created_at DESC LIMIT 1`,
    [tenantId, botId, visitorId],
  );
}
