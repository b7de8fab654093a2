import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import type { Dovecot } from './dovecot.js';

/** An IMAP + SMTP mailbox whose servers never answer (port 9): for tests that sync nothing. */
export const IMAP_MAILBOX = {
  kind: 'imap',
  name: 'Support',
  address: 'Support@Example.test',
  settings: {
    imap_host: '127.0.0.1',
    imap_port: 9,
    smtp_host: '127.0.0.1',
    smtp_port: 9,
    username: 'support',
  },
  secrets: { password: 'imap-password-not-shown' },
};

/** A Postmark inbound mailbox; its replies would leave through an SMTP server on port 2525. */
export const POSTMARK_MAILBOX = {
  kind: 'postmark',
  name: 'Inbound',
  address: 'hello@example.test',
  settings: {
    inbound_username: 'pm',
    smtp_host: '127.0.0.1',
    smtp_port: 2525,
    smtp_tls: false,
    username: 'u',
  },
  secrets: { inbound_password: 'inbound-password-123', password: 'smtp-password' },
};

/** Adds a mailbox to a bot through the API as the tenant's owner (201 expected); its id. */
export async function addMailbox(
  app: FastifyInstance,
  tenant: TenantFixture,
  botId: string,
  payload: object,
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/bots/${botId}/mailboxes`,
    headers: tenant.owner.headers,
    payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/**
 * A new tenant and bot with an IMAP + SMTP mailbox on the test Dovecot, made through the API.
 * One mailbox on the one Dovecot user at a time: earlier tests' mailboxes are switched off and
 * the mail directory is emptied.
 */
export async function connectDovecotMailbox(
  t: TestApp,
  dovecot: Dovecot,
  options: { smtpPort: number; systemPrompt?: string; readAttachments?: boolean },
) {
  await t.ctx.db.query('UPDATE mailboxes SET is_active = false');
  await dovecot.clear();
  const tenant = await buildTenant(t.ctx);
  const bot = await tenant.bot(options.systemPrompt ? { system_prompt: options.systemPrompt } : {});
  const mailboxId = await addMailbox(t.app, tenant, bot.id, {
    kind: 'imap',
    name: 'Studio',
    address: 'bot@example.test',
    settings: {
      imap_host: '127.0.0.1',
      imap_port: dovecot.port,
      imap_tls: false,
      smtp_host: '127.0.0.1',
      smtp_port: options.smtpPort,
      smtp_tls: false,
      username: dovecot.user,
      ...(options.readAttachments === undefined ? {} : { read_attachments: options.readAttachments }),
    },
    secrets: { password: dovecot.password },
  });
  return { tenant, bot, mailboxId };
}
