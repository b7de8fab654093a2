/**
 * The approved templates of a WhatsApp connection and a person's template message from the
 * inbox. Templates are read from the provider (Meta's `message_templates`; Twilio's Content API)
 * and stored per connection: on demand (refresh) and, for Meta, when the
 * `message_template_status_update` webhook reports a change. A person sends one approved
 * template (name, language, its parameters) into a WhatsApp conversation — the only message
 * WhatsApp delivers once the 24-hour window is closed — stored as the person's message (the body
 * with the parameters filled in) and sent through the durable outbox like every reply, at once
 * after the commit.
 */
import type { AppContext } from '../../shared/context.js';
import type { Queryable } from '../../db/database.js';
import { AppError, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import * as repo from './repository.js';
import type { ConnectionRow } from './repository.js';
import * as templateRepo from './template-repository.js';
import type { TemplateRow } from './template-repository.js';
import { queueOutbound, recordProviderError } from './outbound.js';
import { OPTED_OUT_TEXT, providerError } from './rules.js';
import { channelSecretsFor } from './secret-store.js';
import { getConnection } from './service.js';
import { filledParts, filledTemplate, metaShape, twilioShape, type TemplateShape } from './template-shape.js';
import {
  APPROVED,
  metaTemplatePart,
  readMetaTemplates,
  type ReadOutcome,
  type TemplateChange,
} from './templates.js';
import { readTwilioTemplates, twilioTemplatePart } from './twilio-content.js';

type Ctx = Pick<AppContext, 'db' | 'config' | 'coordination'> & {
  log?: { warn(obj: object, msg: string): void };
};

const TEMPLATE_KINDS = new Set(['whatsapp_cloud', 'twilio_whatsapp']);

const unprocessable = (
  message: string,
  code: 'template_unknown' | 'template_parameters' | 'template_channel' | 'template_unsupported',
  details: Record<string, unknown> = {},
) => new AppError(422, 'unprocessable', message, { details: { code, ...details } });

/** What a send of the stored template fills (computed from the provider's components). */
export function shapeOf(kind: string, row: Pick<TemplateRow, 'body' | 'components'>): TemplateShape {
  return kind === 'whatsapp_cloud' ? metaShape(row.components) : twilioShape(row.body, row.components);
}

export function serializeTemplate(kind: string, row: TemplateRow) {
  const shape = shapeOf(kind, row);
  return {
    name: row.name,
    language: row.language,
    status: row.status,
    category: row.category,
    header: shape.header,
    body: row.body,
    footer: shape.footer,
    parameter_count: shape.slots.length,
    parameters: shape.slots.map((slot) => ({
      part: slot.part,
      kind: slot.kind,
      key: slot.key,
      button_text: slot.buttonText,
      url: slot.url,
      example: slot.example,
    })),
    sendable: row.status === APPROVED && shape.unsupported === null,
    unsupported: shape.unsupported,
    refreshed_at: row.refreshed_at.toISOString(),
  };
}

function readFromProvider(ctx: Ctx, conn: ConnectionRow): Promise<ReadOutcome> {
  const secrets = channelSecretsFor(ctx.config);
  const timeoutMs = ctx.config.messaging.sendTimeoutMs;
  if (conn.kind === 'whatsapp_cloud')
    return readMetaTemplates(
      ctx.config.messaging.graphBaseUrl,
      {
        businessAccountId: conn.settings.business_account_id!,
        token: secrets.open(conn, 'access_token'),
      },
      timeoutMs,
    );
  return readTwilioTemplates(
    ctx.config.messaging.twilioContentBaseUrl,
    { sid: conn.settings.account_sid!, token: secrets.open(conn, 'auth_token') },
    timeoutMs,
  );
}

/**
 * Reads the connection's templates from the provider and replaces the stored ones. A refusal is
 * recorded in the connection's health (a bad token makes it unhealthy) and answered 503 in words.
 */
export async function refreshTemplates(ctx: Ctx, conn: ConnectionRow): Promise<TemplateRow[]> {
  if (!TEMPLATE_KINDS.has(conn.kind))
    throw unprocessable('Vorlagen gibt es nur für WhatsApp-Verbindungen.', 'template_channel');
  const read = await readFromProvider(ctx, conn);
  if (!read.ok) {
    const error = providerError(read.code, read.httpStatus ?? undefined);
    const text = read.httpStatus === null ? `Der Anbieter ist nicht erreichbar (${read.text}).` : error.text;
    if (read.httpStatus !== null)
      await ctx.db.transaction((tx) =>
        recordProviderError(tx, conn, error.code, error.text, error.handling === 'unhealthy'),
      );
    throw new AppError(503, 'service_unavailable', `Die Vorlagen konnten nicht gelesen werden: ${text}`, {
      details: { code: 'templates_unavailable', provider_code: read.code },
    });
  }
  await ctx.db.transaction((tx) =>
    templateRepo.replaceTemplates(tx, conn.tenant_id, conn.id, read.templates),
  );
  return templateRepo.listTemplates(ctx.db, conn.id);
}

/** The stored templates of a bot's connection (404 for another tenant's). */
export async function connectionTemplates(db: Queryable, tenantId: string, botId: string, id: string) {
  const conn = await getConnection(db, tenantId, botId, id);
  return { conn, rows: await templateRepo.listTemplates(db, conn.id) };
}

/**
 * Meta's template webhooks: each named template takes its new status at once
 * (`message_template_status_update`). A template not stored yet (created after the last refresh),
 * or one whose components or category changed (edited at Meta), makes the list be read anew,
 * after the webhook was answered. Changes of another business account are ignored.
 */
export async function applyTemplateUpdates(
  ctx: Ctx,
  conn: ConnectionRow,
  updates: TemplateChange[],
): Promise<void> {
  let stale = false;
  for (const u of updates) {
    if (u.accountId && u.accountId !== conn.settings.business_account_id) continue;
    if (u.status === null) stale = true;
    else if ((await templateRepo.setTemplateStatus(ctx.db, conn.id, u, u.status)) === 0) stale = true;
  }
  if (stale)
    void refreshTemplates(ctx, conn).catch((error: unknown) =>
      ctx.log?.warn(
        { err: error, connection_id: conn.id },
        'templates not refreshed after a template change',
      ),
    );
}

/** The approved templates of a messaging conversation's connection (the inbox's choice). */
export async function conversationTemplates(db: Queryable, tenantId: string, conversationId: string) {
  const where = isUuid(conversationId)
    ? await repo.conversationChannel(db, tenantId, conversationId)
    : undefined;
  const conn = where ? await repo.findConnectionById(db, where.connection_id) : undefined;
  if (!where || !conn || conn.tenant_id !== tenantId) throw notFound('Conversation');
  if (!TEMPLATE_KINDS.has(conn.kind)) return { kind: conn.kind, rows: [] };
  const rows = (await templateRepo.listTemplates(db, conn.id)).filter((t) => t.status === APPROVED);
  return { kind: conn.kind, rows };
}

export interface TemplateSend {
  name: string;
  language: string;
  parameters: string[];
}

/** The provider message of an approved template with its parameters. */
function templatePart(
  conn: ConnectionRow,
  template: TemplateRow,
  shape: TemplateShape,
  parameters: string[],
) {
  return conn.kind === 'whatsapp_cloud'
    ? metaTemplatePart(template, shape, parameters)
    : twilioTemplatePart(template.provider_id ?? '', parameters);
}

const invalid = (message: string, index: number) =>
  new AppError(400, 'validation_error', message, {
    details: { code: 'field_invalid', field: 'parameters', index },
  });

/** Meta's limit of a header's text, parameters filled in. */
const HEADER_MAX_CHARS = 60;

/**
 * Each parameter as its part needs it, or a refusal in words naming it: a media header's link is
 * an https address, a button link's end has no spaces, the header's text stays within 60
 * characters.
 */
function checkParameters(shape: TemplateShape, parameters: string[]) {
  shape.slots.forEach((slot, i) => {
    const value = parameters[i]!;
    if (slot.part === 'header' && slot.key === null) {
      let url: URL | null = null;
      try {
        url = new URL(value);
      } catch {
        // Not an address at all: refused below.
      }
      if (url?.protocol !== 'https:')
        throw invalid(`Parameter ${i + 1} (Kopfzeile) muss ein Link mit https:// sein.`, i);
    }
    if (slot.kind === 'url' && /\s/.test(value))
      throw invalid(`Parameter ${i + 1} (Ende des Links) darf keine Leerzeichen enthalten.`, i);
  });
  const header = shape.header ? (filledParts(shape, parameters).header ?? '') : '';
  if (header.length > HEADER_MAX_CHARS)
    throw invalid(
      `Die Kopfzeile wäre ${header.length} Zeichen lang; WhatsApp erlaubt höchstens ${HEADER_MAX_CHARS}.`,
      shape.slots.findIndex((s) => s.part === 'header'),
    );
}

/** The conversation's connection and the approved template, or a refusal in words. */
async function sendable(tx: Queryable, tenantId: string, conversationId: string, body: TemplateSend) {
  const where = await repo.conversationChannel(tx, tenantId, conversationId);
  const conn = where ? await repo.findConnectionById(tx, where.connection_id) : undefined;
  if (!where || !conn || conn.tenant_id !== tenantId || !TEMPLATE_KINDS.has(conn.kind))
    throw unprocessable('Vorlagen lassen sich nur in WhatsApp-Gespräche senden.', 'template_channel');
  const template = await templateRepo.findTemplate(tx, conn.id, body.name, body.language);
  if (!template || template.status !== APPROVED)
    throw unprocessable(
      template
        ? `Die Vorlage „${body.name}“ (${body.language}) ist nicht freigegeben (Status ${template.status}) und kann nicht gesendet werden.`
        : `Die Vorlage „${body.name}“ (${body.language}) ist für diese Verbindung nicht bekannt; lesen Sie die Vorlagen neu ein.`,
      'template_unknown',
      { field: 'name' },
    );
  const shape = shapeOf(conn.kind, template);
  if (shape.unsupported) throw unprocessable(shape.unsupported, 'template_unsupported', { field: 'name' });
  if (body.parameters.length !== shape.slots.length)
    throw unprocessable(
      `Die Vorlage „${body.name}“ braucht ${shape.slots.length} Parameter, angegeben sind ${body.parameters.length}.`,
      'template_parameters',
      { field: 'parameters', expected: shape.slots.length },
    );
  checkParameters(shape, body.parameters);
  if (await repo.isOptedOut(tx, conn.id, where.from_number))
    throw new AppError(409, 'conflict', OPTED_OUT_TEXT, { details: { code: 'opted_out' } });
  return { conn, to: where.from_number, template, shape };
}

/**
 * A person's template message into a WhatsApp conversation (allowed with the window closed), as
 * the inbox sends it (inbox/template.ts): checked inside the inbox's transaction — the
 * conversation's connection, the approved template (one the inbox can fill), its parameters, the
 * opt-out — then its text to store as the person's message, and `queue` for the outbox message of
 * the stored message. A refusal (in words) stores nothing.
 */
export async function prepareTemplateSend(
  tx: Queryable,
  tenantId: string,
  conversationId: string,
  body: TemplateSend,
): Promise<{ content: string; queue: (tx: Queryable, messageId: string) => Promise<void> }> {
  const parameters = body.parameters.map((p) => p.trim());
  if (parameters.some((p) => p === ''))
    throw new AppError(400, 'validation_error', 'Kein Parameter der Vorlage darf leer sein.', {
      details: { code: 'field_blank', field: 'parameters' },
    });
  const { conn, to, template, shape } = await sendable(tx, tenantId, conversationId, { ...body, parameters });
  return {
    content: filledTemplate(shape, parameters).trim() || `[Vorlage ${template.name}]`,
    queue: async (queueTx, messageId) => {
      await queueOutbound(queueTx, conn, {
        conversationId,
        messageId,
        to,
        purpose: 'template',
        automated: false,
        body: { parts: [templatePart(conn, template, shape, parameters)], template: true },
        key: `template:${messageId}`,
      });
    },
  };
}
