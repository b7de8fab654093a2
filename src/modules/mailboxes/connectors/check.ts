import type { AppContext } from '../../../shared/context.js';
import { recordSyncError, recordTokenExpiry, type MailboxRow } from '../../mailboxes/repository.js';
import { secretStoreFor } from '../../mailboxes/secret-store.js';
import { graphClient } from './graph.js';
import { folderOf, imapClient } from './imap.js';
import { smtpTransport } from './smtp.js';
import { describeConnectorError } from '../../email/index.js';

export interface CheckResult {
  ok: boolean;
  checked: string[];
  /** What failed and what to do, in words (German). */
  error: string | null;
  /** The failure's code (connector-errors.ts), its English words and the raw detail. */
  error_code: string | null;
  error_en: string | null;
  error_detail: string | null;
}

const CHECK_TIMEOUT_MS = 15_000;

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
        try {
          await client.connect();
          const lock = await client.getMailboxLock(folderOf(mailbox));
          lock.release();
        } finally {
          await client.logout().catch(() => client.close());
        }
        checked.push('imap');
      }
      const transport = smtpTransport(mailbox, secrets, CHECK_TIMEOUT_MS, policy);
      try {
        await transport.verify();
      } finally {
        transport.close();
      }
      checked.push('smtp');
    }
    return { ok: true, checked, error: null, error_code: null, error_en: null, error_detail: null };
  } catch (error) {
    const described = describeConnectorError(error);
    await recordSyncError(ctx.db, mailbox.id, { code: described.code, detail: described.detail });
    return {
      ok: false,
      checked,
      error: described.de,
      error_code: described.code,
      error_en: described.en,
      error_detail: described.detail,
    };
  }
}
