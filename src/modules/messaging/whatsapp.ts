/**
 * Meta's WhatsApp Business Cloud API: the webhook's signature, its payload as the service's
 * inbound messages and statuses (pure), and `POST /{phone-number-id}/messages`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { checkProviderUrl } from './guards.js';
import { parseChoiceId } from './render.js';
import { obj, str } from './template-shape.js';
import type { VoiceMedia } from './repository.js';

/** X-Hub-Signature-256 = "sha256=" + HMAC-SHA256(app secret, raw body); compared in constant time. */
export function verifyMetaSignature(raw: Buffer, header: string | undefined, appSecret: string): boolean {
  if (!header || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice(7), 'hex');
  const expected = createHmac('sha256', appSecret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface ParsedInbound {
  providerId: string;
  /** E.164 with the plus. */
  from: string;
  kind: 'text' | 'choice' | 'media' | 'voice' | 'location' | 'reaction' | 'unsupported';
  text: string;
  /** A tapped button or row of ours. */
  choice: { block_id: string; item_id: string } | null;
  contextId: string | null;
  ts: Date;
  /** A voice note's audio: Meta's media id or Twilio's media URL, and its content type. */
  media?: VoiceMedia;
}

export interface ParsedStatus {
  providerId: string;
  status: string;
  errorCode: string | null;
  errorTitle: string | null;
  /** Our outbound id, echoed by Meta (biz_opaque_callback_data). */
  opaque: string | null;
}

const e164 = (digits: string) => (digits.startsWith('+') ? digits : `+${digits}`);

function inboundOf(m: Record<string, unknown>): ParsedInbound | null {
  const id = str(m.id);
  const from = str(m.from);
  if (!id || !from) return null;
  const ts = new Date(Number(m.timestamp) * 1000);
  const base = {
    providerId: id,
    from: e164(from),
    contextId: str(obj(m.context).id) || null,
    ts: Number.isNaN(ts.getTime()) ? new Date() : ts,
    choice: null,
  };
  switch (m.type) {
    case 'text':
      return { ...base, kind: 'text', text: str(obj(m.text).body) };
    case 'interactive': {
      const i = obj(m.interactive);
      const reply = obj(i.type === 'list_reply' ? i.list_reply : i.button_reply);
      const choice = parseChoiceId(str(reply.id));
      return {
        ...base,
        kind: choice ? 'choice' : 'text',
        text: str(reply.title),
        choice: choice ? { block_id: choice.blockId, item_id: choice.itemId } : null,
      };
    }
    case 'button': {
      const b = obj(m.button);
      return { ...base, kind: 'text', text: str(b.text) || str(b.payload) };
    }
    case 'image':
    case 'video':
    case 'document':
    case 'sticker':
    case 'audio': {
      const media = obj(m[m.type as string]);
      const caption = str(media.caption).trim();
      if (caption) return { ...base, kind: 'text', text: caption };
      if (m.type !== 'audio') return { ...base, kind: 'media', text: '' };
      const id = str(media.id);
      return {
        ...base,
        kind: 'voice',
        text: '',
        ...(id ? { media: { id, mime_type: str(media.mime_type) || 'audio/ogg' } } : {}),
      };
    }
    case 'location': {
      const l = obj(m.location);
      const place = [str(l.name), str(l.address)].filter(Boolean).join(', ');
      return {
        ...base,
        kind: 'location',
        text: `Standort: ${place ? `${place} ` : ''}(${String(l.latitude)}, ${String(l.longitude)})`,
      };
    }
    case 'reaction': {
      const r = obj(m.reaction);
      return {
        ...base,
        kind: 'reaction',
        text: str(r.emoji),
        contextId: str(r.message_id) || base.contextId,
      };
    }
    default:
      return { ...base, kind: 'unsupported', text: '' };
  }
}

/** The messages and statuses of one webhook payload (several of each may come at once). */
export function parseMetaWebhook(body: unknown): {
  messages: ParsedInbound[];
  statuses: ParsedStatus[];
} {
  const messages: ParsedInbound[] = [];
  const statuses: ParsedStatus[] = [];
  const entries = Array.isArray(obj(body).entry) ? (obj(body).entry as unknown[]) : [];
  for (const entry of entries) {
    const changes = Array.isArray(obj(entry).changes) ? (obj(entry).changes as unknown[]) : [];
    for (const change of changes) {
      const c = obj(change);
      if (c.field !== 'messages') continue;
      const value = obj(c.value);
      for (const m of Array.isArray(value.messages) ? value.messages : []) {
        const parsed = inboundOf(obj(m));
        if (parsed) messages.push(parsed);
      }
      for (const s of Array.isArray(value.statuses) ? value.statuses : []) {
        const status = obj(s);
        const errors = Array.isArray(status.errors) ? status.errors.map(obj) : [];
        if (!str(status.id) || !str(status.status)) continue;
        statuses.push({
          providerId: str(status.id),
          status: str(status.status),
          errorCode: errors[0]?.code !== undefined ? String(errors[0].code) : null,
          errorTitle: str(errors[0]?.title) || null,
          opaque: str(status.biz_opaque_callback_data) || null,
        });
      }
    }
  }
  return { messages, statuses };
}

/** One provider call's outcome. */
export type SendOutcome =
  | { ok: true; providerId: string; httpStatus: number }
  /** Refused by the provider (an error code) or unreachable before the request left. */
  | { ok: false; ambiguous: false; code: string | null; httpStatus: number | null; text: string }
  /** The request may have reached the provider: no answer in time, the connection broke. */
  | { ok: false; ambiguous: true; text: string };

const UNSENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as { code?: string }).code;
}

/** A failed request: unreachable before sending (safe to try again) or ambiguous. */
export function transportFailure(error: unknown): SendOutcome {
  const code = causeCode(error);
  if (code && UNSENT.has(code))
    return { ok: false, ambiguous: false, code: null, httpStatus: null, text: `not reachable (${code})` };
  const name = (error as Error).name;
  return {
    ok: false,
    ambiguous: true,
    text:
      name === 'TimeoutError' || name === 'AbortError'
        ? 'no answer in time'
        : `connection broke (${code ?? name})`,
  };
}

/** POST {base}/{phone_number_id}/{path} with the access token. */
export async function graphPost(
  base: string,
  phoneNumberId: string,
  path: string,
  token: string,
  body: object,
  timeoutMs: number,
): Promise<SendOutcome> {
  const url = `${base.replace(/\/+$/, '')}/${encodeURIComponent(phoneNumberId)}/${path}`;
  checkProviderUrl(url, base);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    return transportFailure(error);
  }
  let json: Record<string, unknown> = {};
  try {
    json = obj(JSON.parse(text));
  } catch {
    // An answer that is not JSON (a proxy's page) is judged by its status.
  }
  if (response.ok) {
    const first = Array.isArray(json.messages) ? obj(json.messages[0]) : {};
    return { ok: true, providerId: str(first.id), httpStatus: response.status };
  }
  const error = obj(json.error);
  return {
    ok: false,
    ambiguous: false,
    code: error.code !== undefined ? String(error.code) : null,
    httpStatus: response.status,
    text: str(error.message).slice(0, 300) || `HTTP ${response.status}`,
  };
}

/** Sends one message to `to` (E.164); `opaque` comes back in its status webhooks. */
export function sendWhatsApp(
  base: string,
  conn: { phoneNumberId: string; token: string },
  to: string,
  part: Record<string, unknown>,
  opaque: string,
  timeoutMs: number,
): Promise<SendOutcome> {
  return graphPost(
    base,
    conn.phoneNumberId,
    'messages',
    conn.token,
    {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: to.replace(/^\+/, ''),
      biz_opaque_callback_data: opaque,
      ...part,
    },
    timeoutMs,
  );
}

/** Marks a customer's message read and shows the typing indicator while the bot answers. */
export function markRead(
  base: string,
  conn: { phoneNumberId: string; token: string },
  messageId: string,
  timeoutMs: number,
): Promise<SendOutcome> {
  return graphPost(
    base,
    conn.phoneNumberId,
    'messages',
    conn.token,
    {
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: messageId,
      typing_indicator: { type: 'text' },
    },
    timeoutMs,
  );
}
