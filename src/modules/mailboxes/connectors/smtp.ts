import nodemailer from 'nodemailer';
import type { Verdict } from '../../outbox/index.js';
import type { MailboxRow } from '../../mailboxes/repository.js';
import { openSecret, type SecretStore } from '../../mailboxes/secret-store.js';
import type { OutboundPolicy } from '../../../shared/outbound.js';
import { guardedSmtpSocket } from './guard.js';

/** An address as the transport takes it: structured, never a string it would parse again. */
export interface Mailbox {
  name: string;
  address: string;
}

/** One mail as it leaves: our Message-ID fixed beforehand, so a retry sends the same mail. */
export interface OutgoingMail {
  messageId: string;
  from: Mailbox;
  to: Mailbox;
  /** The customer's Cc kept on the reply (reply to all). */
  cc: Mailbox[];
  subject: string;
  inReplyTo: string | null;
  references: string[];
  text: string;
  /** A bot's reply (RFC 3834 marks); a person's reply goes out without them. */
  automated: boolean;
}

/** The headers a bot's reply carries so other robots do not answer it. */
export const AUTOMATED_HEADERS = {
  'Auto-Submitted': 'auto-replied',
  'X-Auto-Response-Suppress': 'All',
} as const;

export interface SmtpResult {
  verdict: Verdict;
  statusCode?: number;
  error?: string;
}

/** An SMTP answer as a verdict: 4xx and no answer are worth another try, 5xx is final. */
export function smtpVerdict(error: { responseCode?: number; message: string }): SmtpResult {
  const code = error.responseCode;
  if (code !== undefined && code >= 500) {
    return {
      verdict: { kind: 'permanent', reason: error.message.slice(0, 300) },
      statusCode: code,
      error: error.message,
    };
  }
  return { verdict: { kind: 'failed' }, statusCode: code, error: error.message };
}

export function smtpTransport(
  mailbox: MailboxRow,
  secrets: SecretStore,
  timeoutMs: number,
  policy: OutboundPolicy,
) {
  const s = mailbox.settings;
  const tls = s.smtp_tls ?? true;
  return nodemailer.createTransport({
    host: s.smtp_host,
    port: s.smtp_port ?? (tls ? 465 : 587),
    secure: tls,
    auth: mailbox.secrets.password
      ? { user: s.username ?? mailbox.address, pass: openSecret(secrets, mailbox, 'password') }
      : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // Every connect resolves and checks the host again (no internal addresses).
    getSocket: guardedSmtpSocket(policy, timeoutMs),
    // Loopback test servers and internal relays present no certificate for their name.
    tls: { rejectUnauthorized: !isLoopback(s.smtp_host) },
  });
}

function isLoopback(host: string | undefined): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '::1';
}

export async function sendBySmtp(
  mailbox: MailboxRow,
  secrets: SecretStore,
  mail: OutgoingMail,
  timeoutMs: number,
  policy: OutboundPolicy,
): Promise<SmtpResult> {
  const transport = smtpTransport(mailbox, secrets, timeoutMs, policy);
  try {
    const info = await transport.sendMail({
      messageId: mail.messageId,
      from: mail.from,
      to: [mail.to],
      cc: mail.cc.length > 0 ? mail.cc : undefined,
      subject: mail.subject,
      inReplyTo: mail.inReplyTo ?? undefined,
      references: mail.references.length > 0 ? mail.references : undefined,
      text: mail.text,
      headers: mail.automated ? { ...AUTOMATED_HEADERS } : {},
    });
    const code = Number(/^(\d{3})/.exec(info.response ?? '')?.[1] ?? 250);
    return { verdict: { kind: 'sent' }, statusCode: code };
  } catch (error) {
    return smtpVerdict(error as { responseCode?: number; message: string });
  } finally {
    transport.close();
  }
}
