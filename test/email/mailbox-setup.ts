import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import type { Dovecot } from './dovecot.js';

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
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/bots/${bot.id}/mailboxes`,
    headers: tenant.owner.headers,
    payload: {
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
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { tenant, bot, mailboxId: res.json<{ id: string }>().id };
}
