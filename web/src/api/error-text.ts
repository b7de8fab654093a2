import { CHAT_TEXT, classOf } from '@server/http/errors.js';
import i18n from '../i18n';

/** What the API's error body says about a refusal: its code and what it names. */
export interface Refusal {
  status: number;
  /** ErrorBody.code (or the coarse `error` of an older answer). */
  code: string;
  details: Record<string, unknown>;
}

/** The chat endpoint's German texts (its `error` field) by their key in CHAT_TEXT. */
const CHAT_KEYS = new Map<string, string>(Object.entries(CHAT_TEXT).map(([key, text]) => [text, key]));

/** The refusal an error body describes (ErrorBody or the chat's `{error: text}`). */
export function refusalOf(status: number, body: unknown): Refusal {
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const details =
    record.details && typeof record.details === 'object' ? (record.details as Record<string, unknown>) : {};
  const code =
    typeof record.code === 'string' ? record.code : typeof record.error === 'string' ? record.error : '';
  return { status, code, details };
}

/**
 * The sentence for a refusal in the user's language, from its code: never the server's own
 * (English) sentence. Codes the app does not know yet fall back to the text of their class.
 */
export function refusalText(refusal: Refusal, t = i18n.t.bind(i18n)): string {
  const { code, details, status } = refusal;
  const chatKey = CHAT_KEYS.get(code);
  if (chatKey) return t(`errors.chat.${chatKey}`);
  const params: Record<string, unknown> = { ...details };
  params.resource =
    typeof details.resource === 'string' && i18n.exists(`errors.resources.${details.resource}`)
      ? t(`errors.resources.${details.resource}`)
      : t('errors.resources.route');
  if (typeof details.allowed === 'object') params.allowed = (details.allowed as unknown[]).join(', ');
  const key = i18n.exists(`errors.codes.${code}`) ? code : classOf(status);
  return t(`errors.codes.${key}`, params);
}
