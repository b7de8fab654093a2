/**
 * Twilio's Content API through the official `twilio` library (`client.content.baseUrl` from
 * TWILIO_CONTENT_BASE_URL): the approved WhatsApp templates of an account
 * (`GET /v1/ContentAndApprovals`), and the bot's buttons and lists as `twilio/quick-reply` and
 * `twilio/list-picker` contents (`POST /v1/Content`), created once per distinct item set.
 */
import { createHash } from 'node:crypto';
import twilio from 'twilio';
import type { Queryable } from '../../db/database.js';
import { checkProviderUrl } from './guards.js';
import { findContentSid, storeContentSid } from './template-repository.js';
import { choiceId, interactiveMisfit, listButtonLabel, type ReplyBlock } from './render.js';
import { obj, str } from './template-shape.js';
import type { ReadOutcome, TemplateRecord } from './templates.js';

type Account = { sid: string; token: string };

/** The library's client with its Content domain on the configured base URL. */
export function contentClient(base: string, account: Account, timeoutMs: number) {
  const root = base.replace(/\/+$/, '');
  checkProviderUrl(`${root}/v1/Content`, base);
  const client = twilio(account.sid, account.token, { timeout: timeoutMs, autoRetry: false });
  client.content.baseUrl = root;
  return client;
}

/** A library error as the provider's code and HTTP status (null: no answer). */
export function twilioFailure(error: unknown): {
  code: string | null;
  httpStatus: number | null;
  text: string;
} {
  const e = error as { status?: unknown; code?: unknown; message?: string };
  return {
    code: e.code !== undefined && typeof e.status === 'number' ? String(e.code) : null,
    httpStatus: typeof e.status === 'number' ? e.status : null,
    text: (e.message ?? 'no answer').slice(0, 300),
  };
}

/**
 * One content of `ContentAndApprovals` as a template: its WhatsApp approval is its status; its
 * types and sample variables are kept (what a send fills: templates.ts `twilioShape`).
 */
export function twilioTemplateOf(c: {
  sid: string;
  friendlyName: string;
  language: string;
  types: Record<string, object>;
  approvalRequests: Record<string, object>;
  variables?: object;
}): TemplateRecord {
  const types = obj(c.types);
  const first = obj(types['twilio/text'] ?? Object.values(types)[0]);
  const body = str(first.body);
  const approval = obj(c.approvalRequests);
  return {
    name: c.friendlyName || c.sid,
    language: c.language || 'und',
    providerId: c.sid,
    status: str(approval.status).toUpperCase() || 'UNSUBMITTED',
    category: str(approval.category) || null,
    body,
    components: [{ types, variables: obj(c.variables) }],
  };
}

/** Every content of the account with its WhatsApp approval. */
export async function readTwilioTemplates(
  base: string,
  account: Account,
  timeoutMs: number,
): Promise<ReadOutcome> {
  try {
    const client = contentClient(base, account, timeoutMs);
    const list = await client.content.v1.contentAndApprovals.list({ pageSize: 500, limit: 5000 });
    return { ok: true, templates: list.map(twilioTemplateOf) };
  } catch (error) {
    return { ok: false, ...twilioFailure(error) };
  }
}

/** A Twilio WhatsApp message of a content: its SID and the body's variables {"1": …}. */
export function twilioTemplatePart(contentSid: string, parameters: string[]): Record<string, unknown> {
  return {
    content_sid: contentSid,
    content_variables: JSON.stringify(Object.fromEntries(parameters.map((p, i) => [String(i + 1), p]))),
  };
}

/**
 * The Content create request of a block (`twilio/quick-reply` for buttons, `twilio/list-picker`
 * for a list), or null when it does not fit WhatsApp's limits (then the numbered list is sent).
 */
export function contentRequestOf(
  text: string,
  block: ReplyBlock,
  language: string,
): Record<string, unknown> | null {
  const body = text.trim() || block.name;
  if (interactiveMisfit(block, body)) return null;
  const types =
    block.type === 'buttons'
      ? {
          'twilio/quick-reply': {
            body,
            actions: block.items.map((i) => ({ title: i.title, id: choiceId(block.id, i.id) })),
          },
        }
      : {
          'twilio/list-picker': {
            body,
            button: listButtonLabel(language),
            items: block.items.map((i) => ({
              item: i.title,
              id: choiceId(block.id, i.id),
              ...(i.description ? { description: i.description } : {}),
            })),
          },
        };
  return { friendly_name: `parley_${block.type}_${block.id.slice(0, 8)}`, language, types };
}

/** The cache key of a content: the hash of its create request (type, body, items, language). */
export function contentKey(request: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

/**
 * The Content SID of a block's content on this connection: created through the Content API the
 * first time this exact content is sent, then taken from the database. Throws when Twilio
 * refuses or does not answer (the caller sends the numbered list instead).
 */
export async function contentSidFor(
  db: Queryable,
  connectionId: string,
  base: string,
  account: Account,
  request: Record<string, unknown>,
  timeoutMs: number,
): Promise<string> {
  const key = contentKey(request);
  const known = await findContentSid(db, connectionId, key);
  if (known) return known;
  const created = await contentClient(base, account, timeoutMs).content.v1.contents.create(
    request as unknown as Parameters<
      ReturnType<typeof contentClient>['content']['v1']['contents']['create']
    >[0],
  );
  return storeContentSid(db, connectionId, key, created.sid);
}
