/**
 * IMAP in: a connection per mailbox (imapflow), IDLE while nothing happens and a check at
 * least every poll interval (NOOP fallback for servers without IDLE), reconnect with backoff.
 * The cursor is exact — UIDVALIDITY and the last UID per folder — and moves only after a mail
 * is settled in the database, one mail at a time, so a connection lost mid-batch loses
 * nothing: the next round starts after the last settled UID (and a mail settled but not yet
 * behind the cursor is recognised as a duplicate). Mails are marked read after they settled.
 */
import { ImapFlow } from 'imapflow';
import type { AppContext } from '../../../shared/context.js';
import { saveCursor, type MailboxRow } from '../../mailboxes/repository.js';
import { openSecret, type SecretStore } from '../../mailboxes/secret-store.js';
import type { OutboundPolicy } from '../../../shared/outbound.js';
import { guardedImapTransport } from './guard.js';
import { isPermanentFailure, receiveMail, type InboundOutcome } from './inbound.js';
import { MAX_RAW_BYTES, parseRawMail } from './parse.js';

export interface FolderCursor {
  uidvalidity: string;
  last_uid: number;
  /**
   * Mails behind the cursor whose turn another (dead) instance still holds: read again each
   * round until their reservation ran out and they are settled. The mails after them are read
   * meanwhile.
   */
  retry?: number[];
}

/** Most deferred mails a folder's cursor keeps (older ones are given up to the next full look). */
const MAX_RETRY = 200;

/** Mails fetched per round; the next round follows at once when a round was full. */
export const BATCH_SIZE = 50;

export function imapClient(mailbox: MailboxRow, secrets: SecretStore, policy: OutboundPolicy): ImapFlow {
  const s = mailbox.settings;
  const tls = s.imap_tls ?? true;
  const host = s.imap_host ?? '';
  return new ImapFlow({
    host,
    port: s.imap_port ?? (tls ? 993 : 143),
    secure: tls,
    auth: {
      user: s.username ?? mailbox.address,
      pass: openSecret(secrets, mailbox, 'password'),
    },
    logger: false,
    // Loopback test servers present no certificate for their name.
    tls: { rejectUnauthorized: !['localhost', '127.0.0.1', '::1'].includes(host) },
    doSTARTTLS: tls ? undefined : host === '127.0.0.1' || host === 'localhost' ? false : undefined,
    // Every connect resolves and checks the host again (no internal addresses).
    transport: guardedImapTransport(policy),
    maxIdleTime: 5 * 60_000,
    connectionTimeout: 30_000,
  });
}

export function folderOf(mailbox: MailboxRow): string {
  return mailbox.settings.imap_folder ?? 'INBOX';
}

export interface RoundResult {
  outcomes: InboundOutcome[];
  /** A full batch: more mail is waiting. */
  more: boolean;
}

/**
 * One round on an open connection: the mails after the cursor (on the first round, or after
 * UIDVALIDITY changed, the unread ones), each parsed, settled and only then passed by the
 * cursor and marked read. `holder` is the lease holder: a cursor is moved only while held.
 */
export async function syncRound(
  ctx: AppContext,
  client: ImapFlow,
  mailbox: MailboxRow,
  holder: string | null,
): Promise<RoundResult> {
  const folder = folderOf(mailbox);
  const lock = await client.getMailboxLock(folder);
  try {
    const opened = client.mailbox;
    if (!opened) throw new Error(`folder ${folder} could not be opened`);
    const validity = opened.uidValidity.toString();
    const cursors = (mailbox.cursor.imap ?? {}) as Record<string, FolderCursor>;
    const current = cursors[folder]?.uidvalidity === validity ? cursors[folder] : undefined;
    let uids: number[];
    if (current) {
      uids = ((await client.search({ uid: `${current.last_uid + 1}:*` }, { uid: true })) || []).filter(
        (uid) => uid > current.last_uid,
      );
    } else {
      uids = (await client.search({ seen: false }, { uid: true })) || [];
    }
    uids.sort((a, b) => a - b);
    const retry = new Set((current?.retry ?? []).filter((uid) => uid <= (current?.last_uid ?? 0)));
    const batch = [...retry, ...uids.slice(0, BATCH_SIZE)];
    const outcomes: InboundOutcome[] = [];
    let lastUid = current?.last_uid ?? 0;
    const save = async () => {
      const folderCursor: FolderCursor = { uidvalidity: validity, last_uid: lastUid };
      if (retry.size > 0) folderCursor.retry = [...retry].sort((a, b) => a - b).slice(-MAX_RETRY);
      const moved = await saveCursor(ctx.db, mailbox.id, holder, {
        ...mailbox.cursor,
        imap: { ...cursors, [folder]: folderCursor },
      });
      if (!moved) throw new Error('the mailbox lease was lost during the round');
      return folderCursor;
    };
    for (const uid of batch) {
      const message = await client.fetchOne(
        String(uid),
        { uid: true, source: true, size: true },
        { uid: true },
      );
      if (!message || !message.source) {
        retry.delete(uid);
        continue;
      }
      const source = message.source;
      const outcome = await settleOne(async () =>
        source.length > MAX_RAW_BYTES
          ? receiveMail(ctx, mailbox, {
              messageId: `<uid.${validity}.${uid}@too-large.invalid>`,
              from: null,
              subject: null,
              inReplyTo: null,
              references: [],
              text: '',
              headers: {},
              contentType: 'text/plain',
              skipReason: 'too_large',
            })
          : receiveMail(ctx, mailbox, await parseRawMail(source)),
      );
      outcomes.push(outcome);
      lastUid = Math.max(lastUid, uid);
      if (outcome.status === 'deferred') retry.add(uid);
      else retry.delete(uid);
      await save();
      if (outcome.status !== 'deferred') await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    }
    const settled: FolderCursor = { uidvalidity: validity, last_uid: lastUid };
    if (retry.size > 0) settled.retry = [...retry].sort((a, b) => a - b).slice(-MAX_RETRY);
    if (batch.length === 0 && !current) {
      // A first look at a folder without unread mail: the cursor starts where the folder stands.
      settled.last_uid = Math.max(0, opened.uidNext - 1);
    }
    const cursor = { ...mailbox.cursor, imap: { ...cursors, [folder]: settled } };
    if (
      (batch.length === 0 || retry.size !== (current?.retry?.length ?? 0)) &&
      !(await saveCursor(ctx.db, mailbox.id, holder, cursor))
    ) {
      throw new Error('the mailbox lease was lost during the round');
    }
    mailbox.cursor = cursor;
    return { outcomes, more: uids.length > BATCH_SIZE };
  } finally {
    lock.release();
  }
}

/**
 * One mail settled: a mail that cannot even be stored or read (it fails the same way every
 * time) is passed by the cursor as failed, so it never holds up the mails after it.
 */
async function settleOne(work: () => Promise<InboundOutcome>): Promise<InboundOutcome> {
  try {
    return await work();
  } catch (error) {
    if (!isPermanentFailure(error)) throw error;
    return { status: 'failed', inboundId: '', reason: (error as Error).message.slice(0, 200) };
  }
}
