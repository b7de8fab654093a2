import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../shared/context.js';
import type { Config } from '../../config.js';
import type { Queryable } from '../../db/database.js';
import { badRequest, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { encryptSecret } from '../../shared/secrets.js';
import { findBot } from '../bots/index.js';
import { keyringOf, canonicalOrigin } from './access.js';
import * as repo from './repository.js';
import { identitySecretContext } from './tokens.js';

export function newPublishableKey(): string {
  return 'pk_' + randomBytes(24).toString('base64url');
}

export function newIdentitySecret(): string {
  return 'wis_' + randomBytes(32).toString('base64url');
}

export { identitySecretContext };

/** 404 unless the bot is one of the tenant's; writes nothing. */
export async function requireBot(db: Queryable, tenantId: string, botId: string): Promise<void> {
  if (!isUuid(botId) || !(await findBot(db, tenantId, botId))) throw notFound('Bot');
}

/** The bot's widget settings, created with defaults on first use; 404 for a bot of another tenant. */
export async function settingsOf(
  db: Queryable,
  tenantId: string,
  botId: string,
): Promise<repo.WidgetSettingsRow> {
  await requireBot(db, tenantId, botId);
  return repo.ensureSettings(db, tenantId, botId, newPublishableKey());
}

/** Canonical, de-duplicated origins; 400 naming the first that is not a website origin. */
export function normalizeOrigins(origins: string[]): string[] {
  const result: string[] = [];
  for (const value of origins) {
    const origin = canonicalOrigin(value.trim());
    if (!origin) {
      throw badRequest(`'${value.slice(0, 100)}' is not a website origin (scheme://host[:port])`, {
        code: 'field_format',
        field: 'allowed_origins',
      });
    }
    if (!result.includes(origin)) result.push(origin);
  }
  return result;
}

/** Whether a person's reply can go out by e-mail: the service's SMTP (SMTP_URL) is set. */
export const replyByEmail = (config: Pick<Config, 'mail'>) => config.mail.smtpUrl !== undefined;

export function serializeSettings(row: repo.WidgetSettingsRow, config: Pick<Config, 'mail'>) {
  return {
    bot_id: row.bot_id,
    enabled: row.enabled,
    publishable_key: row.publishable_key,
    allowed_origins: row.allowed_origins,
    verified_only: row.verified_only,
    identity_secret_set: row.identity_secret !== null,
    share_link_enabled: row.share_link_enabled,
    language: row.language,
    theme: row.theme,
    daily_message_budget: row.daily_message_budget,
    business_hours: row.business_hours ?? null,
    reply_email: replyByEmail(config)
      ? { enabled: true, from: config.mail.from }
      : { enabled: false, from: null },
    updated_at: row.updated_at.toISOString(),
  };
}

/** A new identity secret: stored encrypted, returned in plain text this once. */
export async function rotateIdentitySecret(
  ctx: AppContext,
  tenantId: string,
  botId: string,
): Promise<string> {
  const keyring = keyringOf(ctx);
  const secret = newIdentitySecret();
  await ctx.db.transaction(async (tx) => {
    await settingsOf(tx, tenantId, botId);
    await repo.setIdentitySecret(
      tx,
      tenantId,
      botId,
      encryptSecret(keyring, secret, identitySecretContext(botId)),
    );
  });
  return secret;
}

/** Who wrote a message, as the visitor sees it: a reply written in the inbox is a person's. */
export function fromOf(
  row: Pick<repo.TranscriptRow, 'role' | 'author_user_id'>,
): 'visitor' | 'bot' | 'person' {
  if (row.role === 'user') return 'visitor';
  return row.author_user_id !== null || row.role !== 'assistant' ? 'person' : 'bot';
}

export function serializeMessage(row: repo.TranscriptRow) {
  const from = fromOf(row);
  return {
    id: row.id,
    from,
    text: row.content,
    ...(from === 'person' && row.author_name
      ? {
          author: {
            name: row.author_name,
            ...(row.author_avatar_url ? { avatar_url: row.author_avatar_url } : {}),
          },
        }
      : {}),
    ...(row.blocks && row.blocks.length > 0 ? { blocks: row.blocks } : {}),
    created_at: row.created_at.toISOString(),
  };
}

/**
 * The bot's website channels as the go-live checklist reads them (nothing is created): the
 * widget switched on with at least one allowed origin, and the share link.
 */
export async function widgetChannels(
  db: Queryable,
  tenantId: string,
  botId: string,
): Promise<{ widget_live: boolean; share_link: boolean }> {
  const settings = await repo.findSettings(db, tenantId, botId);
  return {
    widget_live: settings !== undefined && settings.enabled && settings.allowed_origins.length > 0,
    share_link: settings?.share_link_enabled === true,
  };
}
