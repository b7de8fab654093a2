/**
 * The customer beside a conversation in the inbox: their verified name and e-mail, the page they
 * are on, their language and device (as the widget reported), and their earlier conversations.
 */
import type { Queryable } from '../../db/database.js';
import { visitorContextOf } from '../widget/index.js';
import * as repo from './repository.js';

/** How many earlier conversations the inbox lists beside one. */
export const EARLIER_CONVERSATIONS = 10;

const BROWSERS: [RegExp, string][] = [
  [/Edg(A|iOS)?\//, 'Edge'],
  [/OPR\//, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** A browser's user agent as people say it ("Chrome on Android"); null when unknown. */
export function deviceOf(userAgent: string | null | undefined): string | null {
  if (!userAgent) return null;
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? null;
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : null);

export async function visitorOfConversation(
  db: Queryable,
  tenantId: string,
  conversation: { id: string; channel: string; sender_id: string | null },
) {
  const facts = await repo.findCustomerFacts(db, tenantId, conversation.id);
  const widget = (facts?.metadata?.widget ?? {}) as Record<string, unknown>;
  const context =
    conversation.channel === 'widget' ? await visitorContextOf(db, tenantId, conversation.id) : undefined;
  const earlier = await repo.listEarlierConversations(
    db,
    tenantId,
    { ...conversation, contact_id: facts?.contact_id ?? null },
    EARLIER_CONVERSATIONS,
  );
  return {
    verified: widget.verified === true,
    name: text(widget.name) ?? facts?.contact_name ?? null,
    email: text(widget.email) ?? facts?.contact_email ?? null,
    contact_id: facts?.contact_id ?? null,
    page_url: context?.page_url ?? null,
    page_title: context?.page_title ?? null,
    language: context?.language ?? null,
    device: deviceOf(context?.user_agent),
    earlier_conversations: earlier.map((c) => ({
      id: c.id,
      channel: c.channel,
      status: c.status,
      message_count: c.message_count,
      created_at: c.created_at.toISOString(),
      last_message_at: c.last_message_at?.toISOString() ?? null,
    })),
  };
}
