/**
 * Twilio (SMS and WhatsApp) through the official `twilio` library: request validation of the
 * webhooks against the connection's public URL, the inbound form as the service's messages
 * (pure), and the Messages API (the library's client with `api.baseUrl` from configuration).
 */
import twilio from 'twilio';
import { checkProviderUrl } from './guards.js';
import type { ParsedInbound, SendOutcome } from './whatsapp.js';
import { transportFailure } from './whatsapp.js';
import { parseChoiceId } from './render.js';

/**
 * Checks X-Twilio-Signature with the library: form posts by their parameters, JSON bodies by
 * the body's SHA-256 in the URL's `bodySHA256`.
 */
export function verifyTwilioRequest(
  authToken: string,
  signature: string | undefined,
  url: string,
  body: { form?: Record<string, string>; raw?: string },
): boolean {
  if (!signature) return false;
  try {
    if (body.raw !== undefined && url.includes('bodySHA256='))
      return twilio.validateRequestWithBody(authToken, signature, url, body.raw);
    return twilio.validateRequest(authToken, signature, url, body.form ?? {});
  } catch {
    return false;
  }
}

/** `whatsapp:+4930…` or `+4930…` as E.164. */
export function bareNumber(address: string): string {
  return address.replace(/^whatsapp:/, '').trim();
}

/** An inbound Twilio message (form fields) as the service's message. */
export function parseTwilioMessage(form: Record<string, string>): ParsedInbound | null {
  const id = form.MessageSid || form.SmsMessageSid;
  const from = form.From;
  if (!id || !from) return null;
  const base = {
    providerId: id,
    from: bareNumber(from),
    contextId: form.OriginalRepliedMessageSid || null,
    ts: new Date(),
  };
  // A tapped quick-reply button (ButtonPayload) or list-picker row (ListId) of ours.
  const tapped = form.ButtonPayload || form.ListId;
  const payload = tapped ? parseChoiceId(tapped) : null;
  if (payload)
    return {
      ...base,
      kind: 'choice',
      text: form.ButtonText ?? form.ListTitle ?? form.Body ?? '',
      choice: { block_id: payload.blockId, item_id: payload.itemId },
    };
  const body = (form.Body ?? '').trim();
  if (body) return { ...base, kind: 'text', text: body, choice: null };
  if (form.Latitude && form.Longitude)
    return {
      ...base,
      kind: 'location',
      text: `Standort: (${form.Latitude}, ${form.Longitude})`,
      choice: null,
    };
  if (Number(form.NumMedia ?? '0') > 0) {
    const type = form.MediaContentType0 ?? '';
    if (!type.startsWith('audio/')) return { ...base, kind: 'media', text: '', choice: null };
    return {
      ...base,
      kind: 'voice',
      text: '',
      choice: null,
      ...(form.MediaUrl0 ? { media: { url: form.MediaUrl0, mime_type: type } } : {}),
    };
  }
  return { ...base, kind: 'unsupported', text: '', choice: null };
}

/**
 * Sends one message with the library's Messages API: a text (`body`) or a Content template
 * (`contentSid` with its `contentVariables`).
 */
export async function sendTwilio(
  baseUrl: string,
  account: { sid: string; token: string },
  message: {
    from: string;
    to: string;
    body?: string;
    contentSid?: string;
    contentVariables?: string;
    statusCallback: string;
  },
  timeoutMs: number,
): Promise<SendOutcome> {
  checkProviderUrl(
    `${baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${account.sid}/Messages.json`,
    baseUrl,
  );
  const client = twilio(account.sid, account.token, { timeout: timeoutMs, autoRetry: false });
  client.api.baseUrl = baseUrl.replace(/\/+$/, '');
  try {
    const sent = await client.messages.create(message);
    return { ok: true, providerId: sent.sid, httpStatus: 201 };
  } catch (error) {
    const e = error as { status?: unknown; code?: unknown; message?: string };
    if (typeof e.status === 'number')
      return {
        ok: false,
        ambiguous: false,
        code: e.code !== undefined ? String(e.code) : null,
        httpStatus: e.status,
        text: (e.message ?? `HTTP ${e.status}`).slice(0, 300),
      };
    return transportFailure(error);
  }
}
