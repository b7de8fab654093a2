import { queryOne, type Queryable } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import type { MailboxKind, MailboxSettings } from './schema.js';

export interface MailboxRow {
  id: string;
  tenant_id: string;
  bot_id: string;
  kind: MailboxKind;
  name: string;
  address: string;
  aliases: string[];
  is_active: boolean;
  settings: MailboxSettings;
  /** Encrypted values by name. */
  secrets: Record<string, string>;
  secret_expires_at: Date | null;
  cursor: Record<string, unknown>;
  last_sync_at: Date | null;
  last_error: string | null;
  /** The last error's code (connector-errors.ts); last_error keeps its detail. */
  last_error_code: string | null;
  last_error_at: Date | null;
  token_expires_at: Date | null;
  expiry_warned_days: number | null;
  lease_holder: string | null;
  lease_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface MailboxFields {
  kind: MailboxKind;
  name: string;
  address: string;
  aliases: string[];
  isActive: boolean;
  settings: MailboxSettings;
  secrets: Record<string, string>;
  secretExpiresAt: Date | null;
}

/** Inserts a mailbox under the id its secrets were sealed for. */
export function insertMailbox(
  db: Queryable,
  tenantId: string,
  botId: string,
  f: MailboxFields,
  id: string,
): Promise<MailboxRow | undefined> {
  return queryOne<MailboxRow>(
    db,
    `INSERT INTO mailboxes (tenant_id, bot_id, kind, name, address, aliases, is_active, settings, secrets, secret_expires_at, id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [
      tenantId,
      botId,
      f.kind,
      f.name,
      f.address,
      f.aliases,
      f.isActive,
      f.settings,
      f.secrets,
      f.secretExpiresAt,
      id,
    ],
  );
}

/** Mailboxes (of every tenant) whose secrets are sealed in an older form than `version`. */
export interface SealedMailboxRow {
  id: string;
  secrets: Record<string, string>;
  secrets_version: number;
}

/** Mailboxes sealed in an older form (below `version`) or with a value under another key. */
export function mailboxesToReseal(
  db: Queryable,
  version: number,
  currentKeyId: string,
): Promise<SealedMailboxRow[]> {
  return db.query(
    `SELECT id, secrets, secrets_version FROM mailboxes
     WHERE secrets_version < $1
        OR EXISTS (SELECT 1 FROM jsonb_each_text(secrets) s WHERE split_part(s.value, ':', 2) <> $2)
     ORDER BY id`,
    [version, currentKeyId],
  );
}

/** Stores re-sealed secrets, only while the row is still as it was read. */
export async function storeResealedSecrets(
  db: Queryable,
  row: SealedMailboxRow,
  secrets: Record<string, string>,
  version: number,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE mailboxes SET secrets = $2, secrets_version = $4
     WHERE id = $1 AND secrets_version = $3 AND secrets = $5::jsonb RETURNING id`,
    [row.id, secrets, row.secrets_version, version, JSON.stringify(row.secrets)],
  );
  return rows.length > 0;
}

export function listMailboxes(db: Queryable, tenantId: string, botId: string): Promise<MailboxRow[]> {
  return db.query<MailboxRow>(
    'SELECT * FROM mailboxes WHERE tenant_id = $1 AND bot_id = $2 ORDER BY created_at, id',
    [tenantId, botId],
  );
}

export function findMailbox(
  db: Queryable,
  tenantId: string,
  botId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<MailboxRow | undefined> {
  return queryOne<MailboxRow>(
    db,
    `SELECT * FROM mailboxes WHERE tenant_id = $1 AND bot_id = $2 AND id = $3${options.lock ? ' FOR UPDATE' : ''}`,
    [tenantId, botId, id],
  );
}

/** A mailbox by id alone: for the inbound webhook and the connectors, which know no tenant yet. */
export function findMailboxById(db: Queryable, id: string): Promise<MailboxRow | undefined> {
  return queryOne<MailboxRow>(db, 'SELECT * FROM mailboxes WHERE id = $1', [id]);
}

export function updateMailbox(
  db: Queryable,
  tenantId: string,
  id: string,
  f: MailboxFields,
): Promise<MailboxRow | undefined> {
  return queryOne<MailboxRow>(
    db,
    `UPDATE mailboxes SET name = $3, address = $4, aliases = $5, is_active = $6, settings = $7, secrets = $8,
       secret_expires_at = $9, expiry_warned_days = CASE WHEN secret_expires_at IS DISTINCT FROM $9 THEN NULL
       ELSE expiry_warned_days END, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, id, f.name, f.address, f.aliases, f.isActive, f.settings, f.secrets, f.secretExpiresAt],
  );
}

export async function deleteMailbox(
  db: Queryable,
  tenantId: string,
  botId: string,
  id: string,
): Promise<boolean> {
  const rows = await db.query(
    'DELETE FROM mailboxes WHERE tenant_id = $1 AND bot_id = $2 AND id = $3 RETURNING id',
    [tenantId, botId, id],
  );
  return rows.length > 0;
}

/** Active mailboxes of the kinds an instance connects to (IMAP, Graph), for the sync job. */
export function activeSyncedMailboxes(db: Queryable): Promise<MailboxRow[]> {
  return db.query<MailboxRow>(
    `SELECT * FROM mailboxes WHERE is_active AND kind IN ('imap', 'graph') ORDER BY id`,
  );
}

/**
 * Takes or renews the lease of a mailbox's connection: granted when free, expired or already
 * ours. The database settles a race between instances (one conditional UPDATE).
 */
export async function acquireLease(
  db: Queryable,
  id: string,
  holder: string,
  seconds: number,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE mailboxes SET lease_holder = $2, lease_expires_at = now() + make_interval(secs => $3)
     WHERE id = $1 AND is_active
       AND (lease_holder IS NULL OR lease_holder = $2 OR lease_expires_at < now())
     RETURNING id`,
    [id, holder, seconds],
  );
  return rows.length > 0;
}

export async function releaseLease(db: Queryable, id: string, holder: string): Promise<void> {
  await db.query(
    'UPDATE mailboxes SET lease_holder = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_holder = $2',
    [id, holder],
  );
}

/** Moves the cursor and records a successful sync (only while the lease is held). */
export async function saveCursor(
  db: Queryable,
  id: string,
  holder: string | null,
  cursor: Record<string, unknown>,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE mailboxes SET cursor = $3, last_sync_at = now(), last_error = NULL, last_error_code = NULL, last_error_at = NULL
     WHERE id = $1 AND ($2::text IS NULL OR lease_holder = $2) RETURNING id`,
    [id, holder, cursor],
  );
  return rows.length > 0;
}

export async function recordSyncSuccess(db: Queryable, id: string): Promise<void> {
  await db.query(
    'UPDATE mailboxes SET last_sync_at = now(), last_error = NULL, last_error_code = NULL, last_error_at = NULL WHERE id = $1',
    [id],
  );
}

/** Records a failure: its code (shown as words) and the raw detail behind it. */
export async function recordSyncError(
  db: Queryable,
  id: string,
  error: { code: string; detail: string },
): Promise<void> {
  await db.query(
    'UPDATE mailboxes SET last_error = $2, last_error_code = $3, last_error_at = now() WHERE id = $1',
    [id, error.detail.slice(0, 1000), error.code.slice(0, 50)],
  );
}

export async function recordTokenExpiry(db: Queryable, id: string, expiresAt: Date): Promise<void> {
  await db.query('UPDATE mailboxes SET token_expires_at = $2 WHERE id = $1', [id, expiresAt]);
}

/** An active mailbox whose secret expires within 31 days of `now`, for the expiry warnings. */
export interface ExpiringMailboxRow {
  id: string;
  tenant_id: string;
  bot_id: string;
  kind: string;
  address: string;
  secret_expires_at: Date;
  expiry_warned_days: number | null;
}

export function mailboxesWithExpiringSecrets(db: Queryable, now: Date): Promise<ExpiringMailboxRow[]> {
  return db.query<ExpiringMailboxRow>(
    `SELECT id, tenant_id, bot_id, kind, address, secret_expires_at, expiry_warned_days FROM mailboxes
     WHERE is_active AND secret_expires_at IS NOT NULL AND secret_expires_at < $1::timestamptz + interval '31 days'`,
    [now],
  );
}

/**
 * Records the warning of `days` unless it (or a smaller one) was given; true when this call
 * recorded it. The conditional update settles a race between instances.
 */
export async function claimExpiryWarning(tx: Queryable, id: string, days: number): Promise<boolean> {
  const claimed = await tx.query(
    `UPDATE mailboxes SET expiry_warned_days = $2
         WHERE id = $1 AND (expiry_warned_days IS NULL OR expiry_warned_days > $2) RETURNING id`,
    [id, days],
  );
  return claimed.length > 0;
}

export interface ReceivedMailRow {
  id: string;
  mailbox_id: string;
  message_id: string;
  from_address: string | null;
  reply_to: string | null;
  second_chance: string | null;
  has_raw: boolean;
  /** The delivery status of the reply to this mail (queued, sent, deferred, bounced, failed), if any. */
  delivery_status: string | null;
  delivery_detail: string | null;
  delivery_to: string | null;
  subject: string | null;
  status: string;
  skip_reason: string | null;
  conversation_id: string | null;
  received_at: Date;
  /** received_at as the page cursor's text (microseconds). */
  cursor_at: string;
}

const RECEIVED_COLUMNS = `i.id, i.mailbox_id, i.message_id, i.from_address, i.reply_to, i.second_chance,
  i.raw IS NOT NULL AS has_raw, i.subject, i.status, i.skip_reason, i.conversation_id, i.received_at,
  o.delivery_status, o.delivery_detail, o.to_address AS delivery_to,
  ${cursorTimestampSql('i.received_at')} AS cursor_at`;

/** Received mails newest first (received_at, then id), after a page position. */
export function listReceivedMails(
  db: Queryable,
  tenantId: string,
  filter: {
    mailboxId?: string;
    conversationId?: string;
    status?: string;
    /** Words found in sender, Reply-To, subject or Message-ID (case-insensitive). */
    q?: string;
    after?: TimeCursor;
    limit: number;
  },
): Promise<ReceivedMailRow[]> {
  const pattern = filter.q ? `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  return db.query<ReceivedMailRow>(
    `SELECT ${RECEIVED_COLUMNS} FROM email_inbound i
     LEFT JOIN LATERAL (SELECT delivery_status, delivery_detail, to_address FROM email_outbound
                        WHERE inbound_id = i.id ORDER BY created_at DESC LIMIT 1) o ON true
     WHERE i.tenant_id = $1 AND ($2::uuid IS NULL OR i.mailbox_id = $2) AND ($3::uuid IS NULL OR i.conversation_id = $3)
       AND ($4::text IS NULL OR i.status = $4)
       AND ($5::timestamptz IS NULL OR (i.received_at, i.id) < ($5::timestamptz, $6::uuid))
       AND ($8::text IS NULL OR i.from_address ILIKE $8 OR i.reply_to ILIKE $8 OR i.subject ILIKE $8
            OR i.message_id ILIKE $8)
     ORDER BY i.received_at DESC, i.id DESC LIMIT $7`,
    [
      tenantId,
      filter.mailboxId ?? null,
      filter.conversationId ?? null,
      filter.status ?? null,
      filter.after?.at ?? null,
      filter.after?.id ?? null,
      filter.limit,
      pattern,
    ],
  );
}

/** The replies of a conversation (or to one address) that bounced: the addresses to warn about. */
export function bouncedAddresses(
  db: Queryable,
  tenantId: string,
  filter: { conversationId?: string; address?: string },
): Promise<{ address: string; detail: string | null; at: Date }[]> {
  return db.query<{ address: string; detail: string | null; at: Date }>(
    `SELECT DISTINCT ON (lower(to_address)) lower(to_address) AS address, delivery_detail AS detail, delivery_at AS at
     FROM email_outbound
     WHERE tenant_id = $1 AND delivery_status = 'bounced'
       AND ($2::uuid IS NULL OR conversation_id = $2) AND ($3::text IS NULL OR lower(to_address) = lower($3))
     ORDER BY lower(to_address), delivery_at DESC`,
    [tenantId, filter.conversationId ?? null, filter.address ?? null],
  );
}

/**
 * Deletes the mails received from an address (an erased person's), as sender or as Reply-To:
 * sender, subject, text and the raw mail go. Returns how many.
 */
export async function deleteInboundOfSender(
  db: Queryable,
  tenantId: string,
  address: string,
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `WITH gone AS (DELETE FROM email_inbound WHERE tenant_id = $1
         AND (lower(btrim(from_address)) = lower(btrim($2)) OR lower(btrim(reply_to)) = lower(btrim($2)))
       RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    [tenantId, address],
  );
  return rows[0]!.n;
}
