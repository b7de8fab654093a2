/**
 * What a delivery report (RFC 3464 DSN, or a bounce in prose) says about one of our mails: the
 * Message-IDs of ours it refers to, whether delivery failed or is only delayed, and the
 * server's words. No I/O.
 */
import { OWN_MESSAGE_ID_LOCAL } from './threading.js';

export interface DeliveryReport {
  /** Our Message-IDs (with brackets) found in the report, the returned headers included. */
  messageIds: string[];
  /** `failed` (bounced), `delayed` (still trying), or null when the report does not say. */
  action: 'failed' | 'delayed' | null;
  /** The server's words: Diagnostic-Code, Status, or the first line that explains. */
  diagnostic: string | null;
}

/** Reads a delivery report's text (all its parts, as received) for the ids under `domain`. */
export function readDeliveryReport(text: string, domain: string): DeliveryReport {
  const messageIds: string[] = [];
  const lowerDomain = domain.toLowerCase();
  for (const match of text.matchAll(/<([^<>\s@]+)@([^<>\s]+)>/g)) {
    const [, local, host] = match;
    if (host!.toLowerCase() !== lowerDomain || !OWN_MESSAGE_ID_LOCAL.test(local!)) continue;
    const id = `<${local}@${host!.toLowerCase()}>`;
    if (!messageIds.includes(id)) messageIds.push(id);
  }
  const action = /^Action:\s*failed/im.test(text)
    ? 'failed'
    : /^Action:\s*delayed/im.test(text)
      ? 'delayed'
      : /^Status:\s*5\.\d+\.\d+/im.test(text) ||
          /(undeliverable|unzustellbar|delivery has failed|could not be delivered|nicht zugestellt)/i.test(
            text,
          )
        ? 'failed'
        : null;
  const diagnostic =
    /^Diagnostic-Code:\s*(.+(?:\r?\n[ \t].+)*)/im.exec(text)?.[1]?.replace(/\s+/g, ' ').trim() ??
    /^Status:\s*(\S+)/im.exec(text)?.[1] ??
    null;
  return { messageIds, action, diagnostic: diagnostic?.slice(0, 1000) ?? null };
}
