import { queryOne, type Queryable } from '../../db/database.js';

export type ConnectionKind = 'whatsapp_cloud' | 'twilio_sms' | 'twilio_whatsapp' | 'twilio_voice';

export interface ConnectionSettings {
  phone_number_id?: string;
  business_account_id?: string;
  account_sid?: string;
  from_number?: string;
  phone_number?: string;
  handoff_number?: string | null;
  mode?: 'relay' | 'gather';
  public_base_url?: string | null;
  quiet_window_ms?: number;
  /** twilio_voice: the call's first language, greeting, a person's hours and the limits. */
  language?: 'de' | 'en' | 'fr' | 'it';
  greeting?: string | null;
  opening_hours?: {
    time_zone: string;
    days: Partial<Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', string[]>>;
  } | null;
  max_call_seconds?: number;
  calls_per_caller_per_hour?: number;
}

export interface ConnectionRow {
  id: string;
  tenant_id: string;
  bot_id: string;
  kind: ConnectionKind;
  name: string;
  is_active: boolean;
  settings: ConnectionSettings;
  /** Encrypted values by name. */
  secrets: Record<string, string>;
  last_inbound_at: Date | null;
  last_outbound_at: Date | null;
  last_error: string | null;
  last_error_code: string | null;
  last_error_at: Date | null;
  unhealthy_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ConnectionFields {
  name: string;
  isActive: boolean;
  settings: ConnectionSettings;
  secrets: Record<string, string>;
  /** A secret changed: the token problem is cleared (rotation takes effect at once). */
  clearUnhealthy: boolean;
}

/** A new connection; its id is chosen first, as its secrets are sealed bound to it. */
export function insertConnection(
  db: Queryable,
  id: string,
  tenantId: string,
  botId: string,
  kind: ConnectionKind,
  f: ConnectionFields,
): Promise<ConnectionRow | undefined> {
  return queryOne<ConnectionRow>(
    db,
    `INSERT INTO channel_connections (id, tenant_id, bot_id, kind, name, is_active, settings, secrets)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [id, tenantId, botId, kind, f.name, f.isActive, f.settings, f.secrets],
  );
}

export interface SealedConnectionRow {
  id: string;
  secrets: Record<string, string>;
  secrets_version: number;
}

/** Connections sealed in an older form (below `version`) or with a value under another key. */
export function connectionsToReseal(
  db: Queryable,
  version: number,
  currentKeyId: string,
): Promise<SealedConnectionRow[]> {
  return db.query(
    `SELECT id, secrets, secrets_version FROM channel_connections
     WHERE secrets_version < $1
        OR EXISTS (SELECT 1 FROM jsonb_each_text(secrets) s WHERE split_part(s.value, ':', 2) <> $2)
     ORDER BY id`,
    [version, currentKeyId],
  );
}

/** Stores re-sealed secrets, only while the row is still as it was read. */
export async function storeResealedConnection(
  db: Queryable,
  row: SealedConnectionRow,
  secrets: Record<string, string>,
  version: number,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE channel_connections SET secrets = $2, secrets_version = $4
     WHERE id = $1 AND secrets_version = $3 AND secrets = $5::jsonb RETURNING id`,
    [row.id, secrets, row.secrets_version, version, JSON.stringify(row.secrets)],
  );
  return rows.length > 0;
}

export function listConnections(db: Queryable, tenantId: string, botId: string): Promise<ConnectionRow[]> {
  return db.query<ConnectionRow>(
    'SELECT * FROM channel_connections WHERE tenant_id = $1 AND bot_id = $2 ORDER BY created_at, id',
    [tenantId, botId],
  );
}

export function findConnection(
  db: Queryable,
  tenantId: string,
  botId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ConnectionRow | undefined> {
  return queryOne<ConnectionRow>(
    db,
    `SELECT * FROM channel_connections WHERE tenant_id = $1 AND bot_id = $2 AND id = $3${options.lock ? ' FOR UPDATE' : ''}`,
    [tenantId, botId, id],
  );
}

/** A connection by id alone: for the public webhooks and the senders, which know no tenant yet. */
export function findConnectionById(db: Queryable, id: string): Promise<ConnectionRow | undefined> {
  return queryOne<ConnectionRow>(db, 'SELECT * FROM channel_connections WHERE id = $1', [id]);
}

export function updateConnection(
  db: Queryable,
  tenantId: string,
  id: string,
  f: ConnectionFields,
): Promise<ConnectionRow | undefined> {
  return queryOne<ConnectionRow>(
    db,
    `UPDATE channel_connections SET name = $3, is_active = $4, settings = $5, secrets = $6,
       unhealthy_since = CASE WHEN $7 THEN NULL ELSE unhealthy_since END, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, id, f.name, f.isActive, f.settings, f.secrets, f.clearUnhealthy],
  );
}

export async function deleteConnection(
  db: Queryable,
  tenantId: string,
  botId: string,
  id: string,
): Promise<boolean> {
  const rows = await db.query(
    'DELETE FROM channel_connections WHERE tenant_id = $1 AND bot_id = $2 AND id = $3 RETURNING id',
    [tenantId, botId, id],
  );
  return rows.length > 0;
}

export interface ErrorCountRow {
  day: string;
  code: string;
  count: number;
}

/** Error counts per code and day of the last 7 days. */
export function errorCounts(
  db: Queryable,
  connectionIds: string[],
): Promise<(ErrorCountRow & { connection_id: string })[]> {
  if (connectionIds.length === 0) return Promise.resolve([]);
  return db.query(
    `SELECT connection_id, to_char(day, 'YYYY-MM-DD') AS day, code, count FROM channel_error_counts
     WHERE connection_id = ANY($1::uuid[]) AND day > current_date - 7 ORDER BY day DESC, code`,
    [connectionIds],
  );
}

/** Records a provider error: the last error in words and the day's count per code. */
export async function recordError(
  db: Queryable,
  id: string,
  code: string,
  text: string,
  unhealthy: boolean,
): Promise<boolean> {
  const rows = await db.query<{ was_healthy: boolean }>(
    `WITH before AS (SELECT unhealthy_since IS NULL AS was_healthy FROM channel_connections WHERE id = $1)
     UPDATE channel_connections SET last_error = $3, last_error_code = $2, last_error_at = now(),
       unhealthy_since = CASE WHEN $4 THEN coalesce(unhealthy_since, now()) ELSE unhealthy_since END
     WHERE id = $1 RETURNING (SELECT was_healthy FROM before)`,
    [id, code.slice(0, 20), text.slice(0, 1000), unhealthy],
  );
  await db.query(
    `INSERT INTO channel_error_counts (connection_id, day, code, count) VALUES ($1, current_date, $2, 1)
     ON CONFLICT (connection_id, day, code) DO UPDATE SET count = channel_error_counts.count + 1`,
    [id, code.slice(0, 20)],
  );
  // True when this error made a healthy connection unhealthy (the event is sent once).
  return unhealthy && rows[0]?.was_healthy === true;
}

/**
 * The health timestamps are written at most once a second per connection: at hundreds of
 * messages a second, an update of the one connection row per message would make every webhook
 * and every send wait for that row's lock. This process skips the statement altogether when it
 * wrote the same timestamp less than a second ago; the statement's own condition covers the
 * other instances.
 */
const HEALTH_WRITE_INTERVAL_MS = 1000;
const healthWrittenAt = new Map<string, number>();

function healthWrittenRecently(key: string): boolean {
  const now = Date.now();
  const at = healthWrittenAt.get(key);
  if (at !== undefined && now - at < HEALTH_WRITE_INTERVAL_MS) return true;
  // Connections that stopped writing are forgotten now and then (the map stays small).
  if (healthWrittenAt.size >= 10_000) healthWrittenAt.clear();
  healthWrittenAt.set(key, now);
  return false;
}

/** A send was accepted: the last outbound time, and a token problem is over. */
export async function recordOutboundOk(db: Queryable, id: string): Promise<void> {
  if (healthWrittenRecently(`out:${id}`)) return;
  await db.query(
    `UPDATE channel_connections SET last_outbound_at = now(), unhealthy_since = NULL
      WHERE id = $1
        AND (last_outbound_at IS NULL OR last_outbound_at < now() - interval '1 second' OR unhealthy_since IS NOT NULL)`,
    [id],
  );
}

// ---- inbound ----

/** A voice note's audio as the provider names it: Meta's media id or Twilio's media URL. */
export interface VoiceMedia {
  id?: string;
  url?: string;
  mime_type: string;
}

export interface NewInbound {
  tenantId: string;
  connectionId: string;
  providerMessageId: string;
  from: string;
  kind: string;
  text: string;
  choice: { block_id: string; item_id: string } | null;
  contextId: string | null;
  media?: VoiceMedia | null;
  providerTs: Date;
  status?: 'received' | 'skipped';
  skipReason?: string | null;
}

export interface InboundRow {
  id: string;
  tenant_id: string;
  connection_id: string;
  provider_message_id: string;
  from_number: string;
  kind: string;
  text: string;
  choice: { block_id: string; item_id: string } | null;
  context_id: string | null;
  media: VoiceMedia | null;
  provider_ts: Date;
  status: string;
  skip_reason: string | null;
  turn_id: string | null;
  conversation_id: string | null;
  received_at: Date;
}

/**
 * Stores inbound messages once: a provider message id already stored is left alone. Returns
 * only the rows this call stored (a retried webhook stores nothing).
 */
export async function insertInbound(db: Queryable, items: NewInbound[]): Promise<InboundRow[]> {
  if (items.length === 0) return [];
  return db.query<InboundRow>(
    `INSERT INTO channel_inbound (tenant_id, connection_id, provider_message_id, from_number, kind, text,
       choice, context_id, media, provider_ts, status, skip_reason)
     SELECT m.tenant_id, m.connection_id, m.provider_message_id, m.from_number, m.kind, m.text, m.choice,
       m.context_id, m.media, m.provider_ts, m.status, m.skip_reason
     FROM jsonb_to_recordset($1::jsonb) AS m(tenant_id uuid, connection_id uuid, provider_message_id text,
       from_number text, kind text, text text, choice jsonb, context_id text, media jsonb,
       provider_ts timestamptz, status text, skip_reason text)
     ON CONFLICT (connection_id, provider_message_id) DO NOTHING
     RETURNING *`,
    [
      JSON.stringify(
        items.map((i) => ({
          tenant_id: i.tenantId,
          connection_id: i.connectionId,
          provider_message_id: i.providerMessageId.slice(0, 200),
          from_number: i.from.slice(0, 32),
          kind: i.kind,
          text: i.text,
          choice: i.choice,
          context_id: i.contextId?.slice(0, 200) ?? null,
          media: i.media ?? null,
          provider_ts: i.providerTs.toISOString(),
          status: i.status ?? 'received',
          skip_reason: i.skipReason ?? null,
        })),
      ),
    ],
  );
}

/** See recordOutboundOk: at most once a second, outside the webhook's transaction. */
export async function recordInboundAt(db: Queryable, connectionId: string): Promise<void> {
  if (healthWrittenRecently(`in:${connectionId}`)) return;
  await db.query(
    `UPDATE channel_connections SET last_inbound_at = now()
      WHERE id = $1 AND (last_inbound_at IS NULL OR last_inbound_at < now() - interval '1 second')`,
    [connectionId],
  );
}

/** A voice note's transcript, kept on its row. */
export async function setInboundText(db: Queryable, id: string, text: string): Promise<void> {
  await db.query('UPDATE channel_inbound SET text = $2 WHERE id = $1', [id, text]);
}

/** The waiting messages of one customer on one connection, oldest (by provider time) first. */
export function pendingOf(db: Queryable, connectionId: string, from: string): Promise<InboundRow[]> {
  return db.query<InboundRow>(
    `SELECT * FROM channel_inbound WHERE connection_id = $1 AND from_number = $2 AND status = 'received'
     ORDER BY provider_ts, received_at, id`,
    [connectionId, from],
  );
}

/**
 * Claims the waiting messages of one customer as one turn. Row locks decide a race between two
 * claimers: the loser claims nothing.
 */
export function claimPending(
  db: Queryable,
  connectionId: string,
  from: string,
  turnId: string,
): Promise<InboundRow[]> {
  return db.query<InboundRow>(
    `UPDATE channel_inbound SET status = 'processing', turn_id = $3
     WHERE id IN (SELECT id FROM channel_inbound WHERE connection_id = $1 AND from_number = $2
                    AND status = 'received' FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [connectionId, from, turnId],
  );
}

/** Turns claimed but not settled (an instance stopped during the turn): given back. */
export async function releaseStaleTurns(db: Queryable, olderThanSeconds: number): Promise<number> {
  const rows = await db.query(
    `UPDATE channel_inbound SET status = 'received'
     WHERE status = 'processing' AND received_at < now() - make_interval(secs => $1) RETURNING id`,
    [olderThanSeconds],
  );
  return rows.length;
}

/** Customers with waiting messages (for the sweep that answers what a stopped instance left). */
export function waitingCustomers(
  db: Queryable,
  olderThanMs: number,
): Promise<{ connection_id: string; from_number: string }[]> {
  return db.query(
    `SELECT DISTINCT connection_id, from_number FROM channel_inbound
     WHERE status = 'received' AND received_at < now() - make_interval(secs => $1) LIMIT 100`,
    [olderThanMs / 1000],
  );
}

export async function settleTurn(
  db: Queryable,
  turnId: string,
  status: 'answered' | 'skipped' | 'failed' | 'handed_over' | 'received',
  conversationId: string | null,
  reason: string | null = null,
): Promise<void> {
  await db.query(
    `UPDATE channel_inbound SET status = $2, conversation_id = coalesce($3, conversation_id), skip_reason = $4
     WHERE turn_id = $1 AND status = 'processing'`,
    [turnId, status, conversationId, reason?.slice(0, 200) ?? null],
  );
}

/** The customer's open conversation on this connection (the latest one that is not ended). */
export async function openConversation(
  db: Queryable,
  tenantId: string,
  connectionId: string,
  from: string,
): Promise<string | null> {
  const row = await queryOne<{ id: string }>(
    db,
    `SELECT c.id FROM channel_inbound i JOIN conversations c ON c.id = i.conversation_id
     WHERE i.connection_id = $1 AND i.from_number = $2 AND c.tenant_id = $3 AND c.status <> 'ended'
     ORDER BY i.received_at DESC LIMIT 1`,
    [connectionId, from, tenantId],
  );
  return row?.id ?? null;
}

/** When the customer last wrote (the customer-service window opens with it). */
export async function lastCustomerMessageAt(
  db: Queryable,
  connectionId: string,
  from: string,
): Promise<Date | null> {
  const row = await queryOne<{ at: Date | null }>(
    db,
    `SELECT max(provider_ts) AS at FROM channel_inbound
     WHERE connection_id = $1 AND from_number = $2 AND kind NOT IN ('reaction')`,
    [connectionId, from],
  );
  return row?.at ?? null;
}

/** The conversation's customer number and connection (its latest inbound message). */
export function conversationChannel(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<{ connection_id: string; from_number: string } | undefined> {
  return queryOne(
    db,
    `SELECT connection_id, from_number FROM channel_inbound WHERE tenant_id = $1 AND conversation_id = $2
     ORDER BY received_at DESC LIMIT 1`,
    [tenantId, conversationId],
  );
}

// ---- opt-outs ----

export async function setOptOut(
  db: Queryable,
  connectionId: string,
  number: string,
  out: boolean,
): Promise<void> {
  if (out)
    await db.query(
      'INSERT INTO channel_opt_outs (connection_id, number) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [connectionId, number],
    );
  else
    await db.query('DELETE FROM channel_opt_outs WHERE connection_id = $1 AND number = $2', [
      connectionId,
      number,
    ]);
}

export async function isOptedOut(db: Queryable, connectionId: string, number: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM channel_opt_outs WHERE connection_id = $1 AND number = $2', [
    connectionId,
    number,
  ]);
  return rows.length > 0;
}

// ---- outbound ----

export interface NewOutbound {
  tenantId: string;
  connectionId: string;
  conversationId: string | null;
  messageId: string | null;
  to: string;
  purpose: 'reply' | 'person' | 'notice' | 'template';
  automated: boolean;
  body: object;
  status?: string;
  errorText?: string | null;
  errorCode?: string | null;
}

export interface OutboundRow {
  id: string;
  tenant_id: string;
  connection_id: string;
  conversation_id: string | null;
  message_id: string | null;
  to_number: string;
  purpose: string;
  automated: boolean;
  body: {
    parts: Record<string, unknown>[];
    block?: unknown;
    numbered?: boolean;
    template?: boolean;
    opt_out_notice?: boolean;
  };
  status: string;
  status_rank: number;
  provider_message_ids: string[];
  error_code: string | null;
  error_text: string | null;
  sent_at: Date | null;
  created_at: Date;
}

export async function insertOutbound(db: Queryable, o: NewOutbound): Promise<string> {
  const row = await queryOne<{ id: string }>(
    db,
    `INSERT INTO channel_outbound (tenant_id, connection_id, conversation_id, message_id, to_number, purpose,
       automated, body, status, status_rank, error_text, error_code)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::varchar, CASE WHEN $9::varchar = 'refused' THEN 7 ELSE 0 END, $10, $11) RETURNING id`,
    [
      o.tenantId,
      o.connectionId,
      o.conversationId,
      o.messageId,
      o.to,
      o.purpose,
      o.automated,
      o.body,
      o.status ?? 'queued',
      o.errorText ?? null,
      o.errorCode ?? null,
    ],
  );
  return row!.id;
}

export function findOutbound(db: Queryable, id: string): Promise<OutboundRow | undefined> {
  return queryOne<OutboundRow>(db, 'SELECT * FROM channel_outbound WHERE id = $1', [id]);
}

export function findOutboundByMessage(
  db: Queryable,
  tenantId: string,
  messageId: string,
): Promise<OutboundRow | undefined> {
  return queryOne<OutboundRow>(
    db,
    'SELECT * FROM channel_outbound WHERE tenant_id = $1 AND message_id = $2',
    [tenantId, messageId],
  );
}

/** The latest outbound message to a customer that carried a block (for a numbered choice or a tap). */
export function latestBlockOutbound(
  db: Queryable,
  connectionId: string,
  to: string,
): Promise<OutboundRow | undefined> {
  return queryOne<OutboundRow>(
    db,
    `SELECT * FROM channel_outbound WHERE connection_id = $1 AND to_number = $2 AND purpose IN ('reply', 'person')
     ORDER BY created_at DESC LIMIT 1`,
    [connectionId, to],
  );
}

/** Moves an outbound message's status forward (never backwards); its connection when it moved. */
export async function advanceOutbound(
  db: Queryable,
  id: string,
  status: string,
  rank: number,
  extra: { providerIds?: string[]; errorCode?: string | null; errorText?: string | null } = {},
): Promise<{ connection_id: string } | undefined> {
  const rows = await db.query<{ connection_id: string }>(
    `UPDATE channel_outbound SET status = $2, status_rank = $3, updated_at = now(),
       provider_message_ids = CASE WHEN $4::text[] IS NULL THEN provider_message_ids
         ELSE ARRAY(SELECT DISTINCT unnest(provider_message_ids || $4::text[])) END,
       error_code = coalesce($5, error_code), error_text = coalesce($6, error_text),
       sent_at = CASE WHEN $3 >= 3 AND $3 < 7 THEN coalesce(sent_at, now()) ELSE sent_at END
     WHERE id = $1 AND status_rank < $3 RETURNING connection_id`,
    [id, status, rank, extra.providerIds ?? null, extra.errorCode ?? null, extra.errorText ?? null],
  );
  return rows[0];
}

/** Records a part's provider id (the status may already be further on). */
export async function addProviderId(db: Queryable, id: string, providerId: string): Promise<void> {
  await db.query(
    `UPDATE channel_outbound SET provider_message_ids = array_append(provider_message_ids, $2),
       status = CASE WHEN status_rank < 1 THEN 'sending' ELSE status END, status_rank = greatest(status_rank, 1),
       updated_at = now()
     WHERE id = $1 AND NOT (provider_message_ids @> ARRAY[$2::text])`,
    [id, providerId],
  );
}

/** The outbound message a provider id belongs to. */
export function outboundByProviderId(
  db: Queryable,
  connectionId: string,
  providerId: string,
): Promise<OutboundRow | undefined> {
  return queryOne<OutboundRow>(
    db,
    'SELECT * FROM channel_outbound WHERE connection_id = $1 AND provider_message_ids @> ARRAY[$2::text]',
    [connectionId, providerId],
  );
}

/** Stores a status webhook once; false when this (message, status) was already stored. */
export async function recordStatusEvent(
  db: Queryable,
  connectionId: string,
  providerId: string,
  status: string,
  errorCode: string | null,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO channel_status_events (connection_id, provider_message_id, status, error_code)
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING status`,
    [connectionId, providerId.slice(0, 200), status.slice(0, 20), errorCode],
  );
  return rows.length > 0;
}

/** The channel messages of a conversation with their delivery statuses (for the inbox). */
export function outboundOfConversation(
  db: Queryable,
  tenantId: string,
  conversationId: string,
): Promise<OutboundRow[]> {
  return db.query<OutboundRow>(
    'SELECT * FROM channel_outbound WHERE tenant_id = $1 AND conversation_id = $2 ORDER BY created_at, id',
    [tenantId, conversationId],
  );
}

/** Per connection: the statuses of the last day's outbound messages. */
export function statusCounts(
  db: Queryable,
  connectionIds: string[],
): Promise<{ connection_id: string; status: string; count: number }[]> {
  if (connectionIds.length === 0) return Promise.resolve([]);
  return db.query(
    `SELECT connection_id, status, count(*)::int AS count FROM channel_outbound
     WHERE connection_id = ANY($1::uuid[]) AND created_at > now() - interval '1 day'
     GROUP BY connection_id, status ORDER BY status`,
    [connectionIds],
  );
}
