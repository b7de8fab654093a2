import type { AppContext } from '../../../shared/context.js';
import { recordSyncError, recordTokenExpiry, type MailboxRow } from '../../mailboxes/repository.js';
import { secretStoreFor } from '../../mailboxes/secret-store.js';
import { graphClient } from './graph.js';
import { connectionFailure } from './guard.js';
import { folderOf, imapClient } from './imap.js';
import { smtpTransport } from './smtp.js';

export interface CheckResult {
  ok: boolean;
  checked: string[];
  error: string | null;
}

const CHECK_TIMEOUT_MS = 15_000;

function words(error: unknown): string {
  const e = error as { responseText?: string; message?: string };
  return (e.responseText ?? e.message ?? String(error)).slice(0, 500);
}

/** A failed IMAP or SMTP step, in the guard's fixed words (never the server's own text). */
class StepFailed extends Error {}

async function step<T>(name: 'IMAP' | 'SMTP', run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new StepFailed(connectionFailure(name, error));
  }
}

/**
 * Checks a mailbox's connection as the connectors will use it: IMAP login and its folder,
 * SMTP login; or a Graph token and a read of the inbox. The failure is also recorded as the
 * mailbox's last error, so the dashboard shows it.
 */
export async function checkMailbox(ctx: AppContext, mailbox: MailboxRow): Promise<CheckResult> {
  const secrets = secretStoreFor(ctx.config);
  const checked: string[] = [];
  const policy = { allowPrivate: ctx.config.outbound.allowPrivateTargets };
  try {
    if (mailbox.kind === 'graph') {
      const client = graphClient(mailbox, secrets, ctx.config.email);
      const { expiresAt } = await client.token();
      await recordTokenExpiry(ctx.db, mailbox.id, expiresAt);
      checked.push('token');
      const response = await client.request(
        'GET',
        `/users/${encodeURIComponent(mailbox.address)}/mailFolders/inbox?$select=id,unreadItemCount`,
      );
      if (!response.ok) throw new Error(`reading the inbox failed: HTTP ${response.status}`);
      checked.push('mailbox');
    } else {
      if (mailbox.kind === 'imap') {
        const client = imapClient(mailbox, secrets, policy);
        client.on('error', () => undefined);
        await step('IMAP', async () => {
          try {
            await client.connect();
            const lock = await client.getMailboxLock(folderOf(mailbox));
            lock.release();
          } finally {
            await client.logout().catch(() => client.close());
          }
        });
        checked.push('imap');
      }
      const transport = smtpTransport(mailbox, secrets, CHECK_TIMEOUT_MS, policy);
      await step('SMTP', async () => {
        try {
          await transport.verify();
        } finally {
          transport.close();
        }
      });
      checked.push('smtp');
    }
    return { ok: true, checked, error: null };
  } catch (error) {
    const text = error instanceof StepFailed ? error.message : words(error);
    await recordSyncError(ctx.db, mailbox.id, text);
    return { ok: false, checked, error: text };
  }
}
