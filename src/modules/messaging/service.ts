/**
 * Channel connections of a bot (WhatsApp Cloud API, Twilio SMS / WhatsApp / voice): the rules of
 * creating and changing them, the write-only secrets, the webhook URLs, and health.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Database, Queryable } from '../../db/database.js';
import { AppError, ErrorCode, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { getBot } from '../bots/index.js';
import * as repo from './repository.js';
import type { ConnectionKind, ConnectionRow, ConnectionSettings } from './repository.js';
import { QUIET_WINDOW_DEFAULT_MS, windowState } from './rules.js';
import type { CreateConnectionBody, UpdateConnectionBody } from './schema.js';
import { openedOrEmpty, type ChannelSecrets } from './secret-store.js';

const SECRET_NAMES = ['access_token', 'app_secret', 'verify_token', 'auth_token'] as const;
const SETTING_NAMES = [
  'phone_number_id',
  'business_account_id',
  'account_sid',
  'from_number',
  'phone_number',
  'handoff_number',
  'mode',
  'public_base_url',
  'quiet_window_ms',
  'language',
  'greeting',
  'opening_hours',
  'max_call_seconds',
  'calls_per_caller_per_hour',
] as const;

/** What a voice connection uses when a setting is not given (voice/connection.ts reads these). */
export const VOICE_SETTING_DEFAULTS = {
  language: 'de' as const,
  maxCallSeconds: 600,
  callsPerCallerPerHour: 5,
};

/** What each kind cannot work without. */
const REQUIRED: Record<ConnectionKind, { settings: (keyof ConnectionSettings)[]; secrets: string[] }> = {
  whatsapp_cloud: {
    settings: ['phone_number_id', 'business_account_id'],
    secrets: ['access_token', 'app_secret', 'verify_token'],
  },
  twilio_sms: { settings: ['account_sid', 'from_number'], secrets: ['auth_token'] },
  twilio_whatsapp: { settings: ['account_sid', 'from_number'], secrets: ['auth_token'] },
  twilio_voice: { settings: ['account_sid', 'phone_number'], secrets: ['auth_token'] },
};

/** Fields that belong to another kind are refused rather than silently stored. */
const ALLOWED: Record<ConnectionKind, string[]> = {
  whatsapp_cloud: ['phone_number_id', 'business_account_id', 'access_token', 'app_secret', 'verify_token'],
  twilio_sms: ['account_sid', 'auth_token', 'from_number'],
  twilio_whatsapp: ['account_sid', 'auth_token', 'from_number'],
  twilio_voice: [
    'account_sid',
    'auth_token',
    'phone_number',
    'handoff_number',
    'mode',
    'language',
    'greeting',
    'opening_hours',
    'max_call_seconds',
    'calls_per_caller_per_hour',
  ],
};
const COMMON = ['name', 'is_active', 'public_base_url', 'quiet_window_ms', 'kind'];

function invalid(field: string, message: string, code: 'field_required' | 'field_unknown'): AppError {
  return new AppError(400, ErrorCode.validation, message, { details: { code, field } });
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export interface ConnectionDeps {
  db: Database;
  secrets: ChannelSecrets;
  config: Config;
}

async function ownBot(db: Queryable, tenantId: string, botId: string): Promise<void> {
  if (!isUuid(botId)) throw notFound('Bot');
  await getBot(db, tenantId, botId);
}

function split(kind: ConnectionKind, id: string, body: Record<string, unknown>, secrets: ChannelSecrets) {
  const settings: ConnectionSettings = {};
  const sealed: Record<string, string> = {};
  for (const key of Object.keys(body)) {
    if (!COMMON.includes(key) && !ALLOWED[kind].includes(key))
      throw invalid(key, `${key} does not belong to a ${kind} connection`, 'field_unknown');
  }
  for (const name of SETTING_NAMES) {
    if (body[name] !== undefined) (settings as Record<string, unknown>)[name] = body[name];
  }
  const zone = settings.opening_hours?.time_zone;
  if (zone !== undefined && !isTimeZone(zone))
    throw new AppError(
      400,
      ErrorCode.validation,
      `opening_hours.time_zone: ${zone} is not an IANA time zone`,
      {
        details: { field: 'opening_hours.time_zone' },
      },
    );
  for (const name of SECRET_NAMES) {
    const value = body[name];
    if (typeof value === 'string') sealed[name] = secrets.seal(value, id, name);
  }
  return { settings, sealed };
}

function checkComplete(kind: ConnectionKind, settings: ConnectionSettings, secrets: Record<string, string>) {
  for (const name of REQUIRED[kind].settings)
    if (settings[name] === undefined || settings[name] === null)
      throw invalid(name, `${name} is required for a ${kind} connection`, 'field_required');
  for (const name of REQUIRED[kind].secrets)
    if (!secrets[name]) throw invalid(name, `${name} is required for a ${kind} connection`, 'field_required');
}

export async function getConnection(
  db: Queryable,
  tenantId: string,
  botId: string,
  id: string,
): Promise<ConnectionRow> {
  await ownBot(db, tenantId, botId);
  const row = isUuid(id) ? await repo.findConnection(db, tenantId, botId, id) : undefined;
  if (!row) throw notFound('Channel connection');
  return row;
}

export async function listBotConnections(db: Queryable, tenantId: string, botId: string) {
  await ownBot(db, tenantId, botId);
  return repo.listConnections(db, tenantId, botId);
}

export async function createConnection(
  deps: ConnectionDeps,
  tenantId: string,
  botId: string,
  body: CreateConnectionBody,
): Promise<ConnectionRow> {
  await ownBot(deps.db, tenantId, botId);
  const id = randomUUID();
  const { settings, sealed } = split(body.kind, id, body, deps.secrets);
  checkComplete(body.kind, settings, sealed);
  const row = await repo.insertConnection(deps.db, id, tenantId, botId, body.kind, {
    name: body.name.trim(),
    isActive: body.is_active ?? true,
    settings,
    secrets: sealed,
    clearUnhealthy: false,
  });
  if (!row) throw new Error('connection insert returned nothing');
  return row;
}

export async function editConnection(
  deps: ConnectionDeps,
  tenantId: string,
  botId: string,
  id: string,
  body: UpdateConnectionBody,
): Promise<ConnectionRow> {
  return deps.db.transaction(async (tx) => {
    await ownBot(tx, tenantId, botId);
    const current = isUuid(id)
      ? await repo.findConnection(tx, tenantId, botId, id, { lock: true })
      : undefined;
    if (!current) throw notFound('Channel connection');
    const { settings, sealed } = split(current.kind, current.id, body, deps.secrets);
    const merged = { ...current.settings, ...settings };
    const secrets = { ...current.secrets, ...sealed };
    checkComplete(current.kind, merged, secrets);
    const row = await repo.updateConnection(tx, tenantId, id, {
      name: body.name?.trim() ?? current.name,
      isActive: body.is_active ?? current.is_active,
      settings: merged,
      secrets,
      clearUnhealthy: Object.keys(sealed).length > 0,
    });
    if (!row) throw notFound('Channel connection');
    return row;
  });
}

export async function removeConnection(db: Database, tenantId: string, botId: string, id: string) {
  await ownBot(db, tenantId, botId);
  if (!isUuid(id) || !(await repo.deleteConnection(db, tenantId, botId, id)))
    throw notFound('Channel connection');
}

/** The base of a connection's public URLs: its own, else PUBLIC_BASE_URL. */
export function publicBase(row: Pick<ConnectionRow, 'settings'>, config: Config): string {
  return (row.settings.public_base_url || config.publicBaseUrl).replace(/\/+$/, '');
}

/** The voice routes of a `twilio_voice` connection sit below `/voice` (modules/voice/routes.ts). */
const pathOf = (row: Pick<ConnectionRow, 'id' | 'kind'>, end: string) =>
  `/v1/channels/${row.id}${row.kind === 'twilio_voice' ? `/voice/${end === 'webhook' ? 'incoming' : end}` : `/${end}`}`;

/**
 * Where the provider sends messages (Meta also verifies it with a GET and sends statuses there);
 * for a voice number, the incoming-call URL.
 */
export function webhookUrl(row: Pick<ConnectionRow, 'id' | 'kind' | 'settings'>, config: Config): string {
  return publicBase(row, config) + pathOf(row, 'webhook');
}

/** Where Twilio sends delivery statuses (a voice number: call statuses). */
export function statusCallbackUrl(
  row: Pick<ConnectionRow, 'id' | 'kind' | 'settings'>,
  config: Config,
): string {
  return publicBase(row, config) + pathOf(row, 'status');
}

/** An active `twilio_voice` connection by id (the id is in the URL Twilio calls) with its auth token opened. */
export async function activeVoiceConnection(
  db: Queryable,
  secrets: ChannelSecrets,
  id: string,
): Promise<{ row: ConnectionRow; authToken: string } | null> {
  const row = isUuid(id) ? await repo.findConnectionById(db, id) : undefined;
  if (!row || row.kind !== 'twilio_voice' || !row.is_active || !row.secrets.auth_token) return null;
  // A token that does not open here (copied from another row, or a key no longer listed) is none.
  const authToken = openedOrEmpty(secrets, row, 'auth_token');
  return authToken ? { row, authToken } : null;
}

export interface ConnectionExtras {
  errors: repo.ErrorCountRow[];
  statuses: Record<string, number>;
}

/** Health figures of several connections at once. */
export async function connectionExtras(db: Queryable, ids: string[]): Promise<Map<string, ConnectionExtras>> {
  const [errors, statuses] = await Promise.all([repo.errorCounts(db, ids), repo.statusCounts(db, ids)]);
  const out = new Map<string, ConnectionExtras>(ids.map((id) => [id, { errors: [], statuses: {} }]));
  for (const e of errors) out.get(e.connection_id)?.errors.push({ day: e.day, code: e.code, count: e.count });
  for (const s of statuses) {
    const entry = out.get(s.connection_id);
    if (entry) entry.statuses[s.status] = s.count;
  }
  return out;
}

/** The voice fields as the API shows them: with their defaults on a voice connection, null elsewhere. */
function voiceSettingsOf(row: ConnectionRow) {
  const s = row.settings;
  const voice = row.kind === 'twilio_voice';
  return {
    language: voice ? (s.language ?? VOICE_SETTING_DEFAULTS.language) : null,
    greeting: voice ? (s.greeting ?? null) : null,
    opening_hours: voice ? (s.opening_hours ?? null) : null,
    max_call_seconds: voice ? (s.max_call_seconds ?? VOICE_SETTING_DEFAULTS.maxCallSeconds) : null,
    calls_per_caller_per_hour: voice
      ? (s.calls_per_caller_per_hour ?? VOICE_SETTING_DEFAULTS.callsPerCallerPerHour)
      : null,
  };
}

/** A connection as the API shows it: secrets only by name, the URLs to enter, health. */
export function serializeConnection(row: ConnectionRow, config: Config, extras?: ConnectionExtras) {
  const s = row.settings;
  return {
    id: row.id,
    bot_id: row.bot_id,
    kind: row.kind,
    name: row.name,
    is_active: row.is_active,
    phone_number_id: s.phone_number_id ?? null,
    business_account_id: s.business_account_id ?? null,
    account_sid: s.account_sid ?? null,
    from_number: s.from_number ?? null,
    phone_number: s.phone_number ?? null,
    handoff_number: s.handoff_number ?? null,
    mode: row.kind === 'twilio_voice' ? (s.mode ?? 'relay') : null,
    public_base_url: s.public_base_url ?? null,
    quiet_window_ms: s.quiet_window_ms ?? QUIET_WINDOW_DEFAULT_MS,
    ...voiceSettingsOf(row),
    secrets_set: Object.keys(row.secrets).sort(),
    webhook_url: webhookUrl(row, config),
    status_callback_url: row.kind === 'whatsapp_cloud' ? null : statusCallbackUrl(row, config),
    health: {
      healthy: row.unhealthy_since === null,
      unhealthy_since: row.unhealthy_since?.toISOString() ?? null,
      last_inbound_at: row.last_inbound_at?.toISOString() ?? null,
      last_outbound_at: row.last_outbound_at?.toISOString() ?? null,
      last_error: row.last_error,
      last_error_code: row.last_error_code,
      last_error_at: row.last_error_at?.toISOString() ?? null,
      error_counts: extras?.errors ?? [],
      statuses: extras?.statuses ?? {},
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * A WhatsApp/SMS conversation as the inbox shows it: the 24-hour window's remaining time, the
 * opt-out, and every message sent with its delivery status (in words when it failed). 404 for a
 * conversation that is not one of the tenant's messaging conversations.
 */
export async function conversationChannelState(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  now = new Date(),
) {
  const where = isUuid(conversationId)
    ? await repo.conversationChannel(db, tenantId, conversationId)
    : undefined;
  const conn = where ? await repo.findConnectionById(db, where.connection_id) : undefined;
  if (!where || !conn || conn.tenant_id !== tenantId) throw notFound('Conversation');
  const windowed = conn.kind === 'whatsapp_cloud' || conn.kind === 'twilio_whatsapp';
  const window = windowState(await repo.lastCustomerMessageAt(db, conn.id, where.from_number), now);
  const rows = await repo.outboundOfConversation(db, tenantId, conversationId);
  return {
    connection_id: conn.id,
    kind: conn.kind,
    customer_number: where.from_number,
    opted_out: await repo.isOptedOut(db, conn.id, where.from_number),
    window: windowed
      ? {
          open: window.open,
          closes_at: window.closesAt?.toISOString() ?? null,
          remaining_seconds: Math.floor(window.remainingMs / 1000),
        }
      : null,
    messages: rows.map((r) => ({
      id: r.id,
      purpose: r.purpose,
      status: r.status,
      error_code: r.error_code,
      error: r.error_text,
      parts: r.body.parts.length,
      created_at: r.created_at.toISOString(),
      sent_at: r.sent_at?.toISOString() ?? null,
    })),
  };
}
