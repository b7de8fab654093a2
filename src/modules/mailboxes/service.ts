/**
 * Mailbox connections of a bot: the rules of creating and changing them (which settings and
 * secrets a kind needs), the write-only secrets, and how a mailbox is shown (health included).
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Database, Queryable } from '../../db/database.js';
import { AppError, ErrorCode, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { checkOutboundHost, hostRefusal, isRefusal } from '../../shared/outbound.js';
import { timePage } from '../../shared/pagination.js';
import { getBot } from '../bots/index.js';
import { getConversationDetail } from '../conversations/index.js';
import { canonicalSkipReason, connectorErrorText } from '../email/index.js';
import {
  deleteInboundOfSender,
  deleteMailbox,
  findMailbox,
  insertMailbox,
  listMailboxes,
  listReceivedMails,
  bouncedAddresses,
  mailboxesToReseal,
  storeResealedSecrets,
  type SealedMailboxRow,
  updateMailbox,
  type ReceivedMailRow,
  type MailboxFields,
  type MailboxRow,
} from './repository.js';
import type {
  CreateMailboxBody,
  MailboxKind,
  MailboxSecrets,
  MailboxSettings,
  UpdateMailboxBody,
} from './schema.js';
import { UNBOUND_CONTEXT, type SecretStore } from './secret-store.js';
import { jsonSecretsReseal, resealRows, type RowSecrets } from '../../shared/sealed.js';

/** What each kind cannot work without. */
const REQUIRED: Record<
  MailboxKind,
  { settings: (keyof MailboxSettings)[]; secrets: (keyof MailboxSecrets)[] }
> = {
  imap: { settings: ['imap_host', 'smtp_host', 'username'], secrets: ['password'] },
  graph: { settings: ['tenant_id', 'client_id'], secrets: ['client_secret'] },
  postmark: {
    settings: ['inbound_username', 'smtp_host', 'username'],
    secrets: ['inbound_password', 'password'],
  },
};

/** Days before a secret's expiry at which a warning is given. */
export const EXPIRY_WARNING_DAYS = [30, 7, 1] as const;

function required(field: string): AppError {
  return new AppError(400, ErrorCode.validation, `${field} is required for this kind of mailbox`, {
    details: { code: 'field_required', field },
  });
}

function checkComplete(kind: MailboxKind, settings: MailboxSettings, secrets: Record<string, string>): void {
  for (const name of REQUIRED[kind].settings)
    if (settings[name] === undefined) throw required(`settings.${name}`);
  for (const name of REQUIRED[kind].secrets) if (!secrets[name]) throw required(`secrets.${name}`);
}

function sealAll(
  store: SecretStore,
  mailboxId: string,
  secrets: MailboxSecrets | undefined,
): Record<string, string> {
  const sealed: Record<string, string> = {};
  for (const [name, value] of Object.entries(secrets ?? {})) {
    if (typeof value === 'string') sealed[name] = store.encryptSecret(value, { mailboxId, field: name });
  }
  return sealed;
}

/** The mailboxes' part in the start-up re-seal (shared/sealed.ts). */
const MAILBOX_RESEAL = jsonSecretsReseal<SealedMailboxRow>('mailboxes', UNBOUND_CONTEXT, {
  candidates: mailboxesToReseal,
  store: storeResealedSecrets,
});

/**
 * Re-seals mailbox secrets sealed before the row binding (version 1: associated data `mailbox`
 * only) or under a key other than the current one. Runs at start-up, after the migrations.
 */
export function resealMailboxSecrets(
  db: Queryable,
  secrets: RowSecrets,
): Promise<{ resealed: number; failed: string[] }> {
  return resealRows(db, secrets, MAILBOX_RESEAL);
}

/**
 * The IMAP and SMTP hosts given are checked by the outbound-connection guard: a host that is
 * or resolves to an internal address, or is spelled as a numeric shorthand, is a 400 in words
 * and nothing is stored. A name that does not resolve (yet) is accepted; connects check it.
 */
async function checkHosts(config: Config, settings: Partial<MailboxSettings> | undefined): Promise<void> {
  const policy = { allowPrivate: config.outbound.allowPrivateTargets };
  for (const field of ['imap_host', 'smtp_host'] as const) {
    const host = settings?.[field];
    if (host === undefined) continue;
    try {
      await checkOutboundHost(host, policy);
    } catch (error) {
      // A name that does not resolve yet is kept: every connect checks it again.
      if (isRefusal(error) && error.code === 'url_host_unresolvable') continue;
      if (isRefusal(error)) throw hostRefusal(`settings.${field}`, error);
      throw error;
    }
  }
}

export interface MailboxDeps {
  db: Database;
  secrets: SecretStore;
  config: Config;
}

async function ownBot(db: Queryable, tenantId: string, botId: string): Promise<void> {
  if (!isUuid(botId)) throw notFound('Bot');
  await getBot(db, tenantId, botId);
}

export async function getMailbox(
  db: Queryable,
  tenantId: string,
  botId: string,
  id: string,
): Promise<MailboxRow> {
  await ownBot(db, tenantId, botId);
  const row = isUuid(id) ? await findMailbox(db, tenantId, botId, id) : undefined;
  if (!row) throw notFound('Mailbox');
  return row;
}

export async function listBotMailboxes(
  db: Queryable,
  tenantId: string,
  botId: string,
): Promise<MailboxRow[]> {
  await ownBot(db, tenantId, botId);
  return listMailboxes(db, tenantId, botId);
}

export async function createMailbox(
  deps: MailboxDeps,
  tenantId: string,
  botId: string,
  body: CreateMailboxBody,
): Promise<MailboxRow> {
  await ownBot(deps.db, tenantId, botId);
  const id = randomUUID();
  const secrets = sealAll(deps.secrets, id, body.secrets);
  checkComplete(body.kind, body.settings, secrets);
  await checkHosts(deps.config, body.settings);
  const fields: MailboxFields = {
    kind: body.kind,
    name: body.name.trim(),
    address: body.address.toLowerCase(),
    aliases: (body.aliases ?? []).map((a) => a.toLowerCase()),
    isActive: body.is_active ?? true,
    settings: body.settings,
    secrets,
    secretExpiresAt: body.secret_expires_at ? new Date(body.secret_expires_at) : null,
  };
  const row = await insertMailbox(deps.db, tenantId, botId, fields, id);
  if (!row) throw new Error('mailbox insert returned nothing');
  return row;
}

export async function editMailbox(
  deps: MailboxDeps,
  tenantId: string,
  botId: string,
  id: string,
  body: UpdateMailboxBody,
): Promise<MailboxRow> {
  await ownBot(deps.db, tenantId, botId);
  await checkHosts(deps.config, body.settings);
  return deps.db.transaction(async (tx) => {
    await ownBot(tx, tenantId, botId);
    const current = isUuid(id) ? await findMailbox(tx, tenantId, botId, id, { lock: true }) : undefined;
    if (!current) throw notFound('Mailbox');
    const settings = body.settings ? { ...current.settings, ...body.settings } : current.settings;
    const secrets = { ...current.secrets, ...sealAll(deps.secrets, current.id, body.secrets) };
    checkComplete(current.kind, settings, secrets);
    const fields: MailboxFields = {
      kind: current.kind,
      name: body.name?.trim() ?? current.name,
      address: body.address?.toLowerCase() ?? current.address,
      aliases: body.aliases?.map((a) => a.toLowerCase()) ?? current.aliases,
      isActive: body.is_active ?? current.is_active,
      settings,
      secrets,
      secretExpiresAt:
        body.secret_expires_at === undefined
          ? current.secret_expires_at
          : body.secret_expires_at === null
            ? null
            : new Date(body.secret_expires_at),
    };
    const row = await updateMailbox(tx, tenantId, id, fields);
    if (!row) throw notFound('Mailbox');
    return row;
  });
}

export async function removeMailbox(
  db: Database,
  tenantId: string,
  botId: string,
  id: string,
): Promise<void> {
  await ownBot(db, tenantId, botId);
  if (!isUuid(id) || !(await deleteMailbox(db, tenantId, botId, id))) throw notFound('Mailbox');
}

/** Whole days until the secret expires (negative when past); null without an expiry. */
export function daysUntil(expiresAt: Date | null, now: Date): number | null {
  if (!expiresAt) return null;
  return Math.floor((expiresAt.getTime() - now.getTime()) / 86_400_000);
}

/** The warning a mailbox's secret deserves now: within 30 days expiring, past it expired. */
export function secretWarning(days: number | null): 'secret_expiring' | 'secret_expired' | null {
  if (days === null) return null;
  if (days < 0) return 'secret_expired';
  return days <= EXPIRY_WARNING_DAYS[0] ? 'secret_expiring' : null;
}

/** A mailbox as the API shows it: secrets only by name, health in words. */
export function serializeMailbox(row: MailboxRow, config: Config, now = new Date()) {
  const days = daysUntil(row.secret_expires_at, now);
  const staleBefore = now.getTime() - config.email.staleMinutes * 60_000;
  const syncs = row.kind !== 'postmark';
  return {
    id: row.id,
    bot_id: row.bot_id,
    kind: row.kind,
    name: row.name,
    address: row.address,
    aliases: row.aliases,
    is_active: row.is_active,
    settings: row.settings,
    secrets_set: Object.keys(row.secrets).sort(),
    secret_expires_at: row.secret_expires_at?.toISOString() ?? null,
    inbound_url:
      row.kind === 'postmark'
        ? `${config.publicBaseUrl.replace(/\/+$/, '')}/v1/email/inbound/postmark/${row.id}`
        : null,
    health: {
      last_sync_at: row.last_sync_at?.toISOString() ?? null,
      last_error: row.last_error ? (connectorErrorText(row.last_error_code, 'de') ?? row.last_error) : null,
      last_error_code: row.last_error_code,
      last_error_en: row.last_error
        ? (connectorErrorText(row.last_error_code, 'en') ?? row.last_error)
        : null,
      last_error_detail: row.last_error,
      last_error_at: row.last_error_at?.toISOString() ?? null,
      token_expires_at: row.token_expires_at?.toISOString() ?? null,
      stale: syncs && row.is_active && (row.last_sync_at ?? row.created_at).getTime() < staleBefore,
      secret_expires_in_days: days,
      warning: secretWarning(days),
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A received mail as the API shows it: the reason as today's code, an error in words. */
export function serializeReceivedMail(row: ReceivedMailRow) {
  const code = canonicalSkipReason(row.skip_reason);
  return {
    id: row.id,
    mailbox_id: row.mailbox_id,
    message_id: row.message_id,
    from_address: row.from_address,
    reply_to: row.reply_to,
    subject: row.subject,
    status: row.status,
    skip_reason: code,
    error: !code && row.skip_reason ? row.skip_reason : null,
    second_chance: (row.second_chance as 'answered' | 'inbox' | null) ?? null,
    has_raw: row.has_raw,
    delivery: row.delivery_status
      ? { status: row.delivery_status, detail: row.delivery_detail, to: row.delivery_to }
      : null,
    conversation_id: row.conversation_id,
    received_at: row.received_at.toISOString(),
  };
}

const MAILBOX_MAIL_LIST = 'mailbox_mails';
const CONVERSATION_MAIL_LIST = 'conversation_mails';

/** One page of a mailbox's received mails, newest first (optionally one status). */
export async function listMailboxMails(
  db: Queryable,
  tenantId: string,
  botId: string,
  mailboxId: string,
  query: { status?: string; q?: string; limit?: number; cursor?: string },
) {
  const mailbox = await getMailbox(db, tenantId, botId, mailboxId);
  const q = query.q?.trim() || undefined;
  const page = await timePage(MAILBOX_MAIL_LIST, query, (limit, after) =>
    listReceivedMails(db, tenantId, {
      mailboxId: mailbox.id,
      status: query.status,
      q,
      after,
      limit: limit + 1,
    }),
  );
  return { data: page.data.map(serializeReceivedMail), next_cursor: page.next_cursor };
}

/** One page of the mails received in a conversation (answered and not), newest first; 404 for another tenant's. */
export async function listConversationMails(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  query: { limit?: number; cursor?: string },
) {
  // The conversation's own module answers 404 for an unknown or another tenant's conversation.
  await getConversationDetail(db, tenantId, conversationId, { limit: 1 });
  const page = await timePage(CONVERSATION_MAIL_LIST, query, (limit, after) =>
    listReceivedMails(db, tenantId, { conversationId, after, limit: limit + 1 }),
  );
  const bounced = await bouncedAddresses(db, tenantId, { conversationId });
  return {
    data: page.data.map(serializeReceivedMail),
    next_cursor: page.next_cursor,
    bounced: bounced.map((b) => ({ address: b.address, detail: b.detail, at: b.at?.toISOString() ?? null })),
  };
}

/** Addresses of the tenant whose replies bounced (a warning on a contact with that address). */
export async function bouncedWarnings(db: Queryable, tenantId: string, address: string) {
  const rows = await bouncedAddresses(db, tenantId, { address });
  return {
    data: rows.map((b) => ({ address: b.address, detail: b.detail, at: b.at?.toISOString() ?? null })),
  };
}

/** The latest bounce of a reply to the address (case-insensitive), or null: the warning on a contact. */
export async function lastBounceOf(
  db: Queryable,
  tenantId: string,
  address: string,
): Promise<{ address: string; detail: string | null; at: string | null } | null> {
  const [row] = await bouncedAddresses(db, tenantId, { address });
  return row ? { address: row.address, detail: row.detail, at: row.at?.toISOString() ?? null } : null;
}

/** Forgets what mails from the address held (an erased person): the received mails are deleted. */
export function forgetSender(db: Queryable, tenantId: string, address: string): Promise<number> {
  return deleteInboundOfSender(db, tenantId, address);
}
