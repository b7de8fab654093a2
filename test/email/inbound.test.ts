import { expect, it } from 'vitest';
import { ownMessageId } from '../../src/modules/email/threading.js';
import { canonicalSkipReason, mailSkipReasonText } from '../../src/modules/email/reasons.js';
import { findMailboxById, type MailboxRow } from '../../src/modules/mailboxes/repository.js';
import { receiveMail, type InboundMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addMailbox, POSTMARK_MAILBOX } from './mailbox-setup.js';

let sequence = 0;
function mail(fields: Partial<InboundMail> & { from?: string } = {}): InboundMail {
  sequence += 1;
  const messageId = fields.messageId ?? `<m-${Date.now()}-${sequence}@kunde.example>`;
  const references = fields.references ?? [];
  const inReplyTo = fields.inReplyTo ?? null;
  const headers: Record<string, string[]> = { 'message-id': [messageId] };
  if (references.length > 0) headers['references'] = [references.join(' ')];
  if (inReplyTo) headers['in-reply-to'] = [inReplyTo];
  return {
    messageId,
    from: fields.from ?? 'kunde@kunde.example',
    subject: fields.subject ?? 'Frage',
    inReplyTo,
    references,
    text: fields.text ?? `Wann haben Sie geöffnet? (${sequence})`,
    headers: { ...headers, ...(fields.headers ?? {}) },
    contentType: 'text/plain',
  };
}

describeApp('an arrived mail: robots, loop guard, threading', (get) => {
  async function mailbox(): Promise<MailboxRow> {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({});
    const id = await addMailbox(get().app, tenant, bot.id, POSTMARK_MAILBOX);
    return (await findMailboxById(get().db, id))!;
  }

  async function outboundIdOf(inboundId: string): Promise<string> {
    const [row] = await get().db.query<{ message_id: string }>(
      'SELECT message_id FROM email_outbound WHERE inbound_id = $1',
      [inboundId],
    );
    return row!.message_id;
  }

  it('joins the thread through the whole References chain; our ids carry a verifying tag', async () => {
    const { ctx } = get();
    const box = await mailbox();
    const first = await receiveMail(ctx, box, mail());
    expect(first.status).toBe('answered');
    if (first.status !== 'answered') return;
    const ours = await outboundIdOf(first.inboundId);
    expect(ours).toMatch(/^<[0-9a-f]{24}\.[0-9a-f]{32}@example\.test>$/);
    // In-Reply-To points to an unknown mail; our reply is further back in References.
    const second = await receiveMail(
      ctx,
      box,
      mail({ inReplyTo: '<unknown@elsewhere.example>', references: [ours, '<unknown@elsewhere.example>'] }),
    );
    expect(second).toMatchObject({ status: 'answered', conversationId: first.conversationId });
  });

  it('a sender who is not a participant gets a new conversation linked to the old one', async () => {
    const { ctx } = get();
    const box = await mailbox();
    const first = await receiveMail(ctx, box, mail());
    if (first.status !== 'answered') throw new Error(first.status);
    const ours = await outboundIdOf(first.inboundId);
    const colleague = await receiveMail(
      ctx,
      box,
      mail({ from: 'kollege@kunde.example', inReplyTo: ours, references: [ours] }),
    );
    expect(colleague.status).toBe('answered');
    if (colleague.status !== 'answered') return;
    expect(colleague.conversationId).not.toBe(first.conversationId);
    const [conversation] = await ctx.db.query<{ metadata: { email?: { linked_conversation_id?: string } } }>(
      'SELECT metadata FROM conversations WHERE id = $1',
      [colleague.conversationId],
    );
    expect(conversation!.metadata.email?.linked_conversation_id).toBe(first.conversationId);
  });

  it('a stored id in our format with a forged tag threads nothing', async () => {
    const { ctx } = get();
    const box = await mailbox();
    const first = await receiveMail(ctx, box, mail());
    if (first.status !== 'answered') throw new Error(first.status);
    const forged = ownMessageId('example.test', box.tenant_id, first.conversationId, 'not-our-secret');
    await ctx.db.query(
      `INSERT INTO email_outbound (tenant_id, mailbox_id, conversation_id, message_id, to_address, subject, body_text)
       VALUES ($1, $2, $3, $4, 'kunde@kunde.example', 'x', 'x')`,
      [box.tenant_id, box.id, first.conversationId, forged],
    );
    const next = await receiveMail(ctx, box, mail({ inReplyTo: forged, references: [forged] }));
    expect(next.status).toBe('answered');
    if (next.status === 'answered') expect(next.conversationId).not.toBe(first.conversationId);
  });

  it('another tenant cannot thread into a conversation by its ids', async () => {
    const { ctx } = get();
    const box = await mailbox();
    const other = await mailbox();
    const first = await receiveMail(ctx, box, mail());
    if (first.status !== 'answered') throw new Error(first.status);
    const ours = await outboundIdOf(first.inboundId);
    const foreign = await receiveMail(ctx, other, mail({ inReplyTo: ours, references: [ours] }));
    if (foreign.status !== 'answered') throw new Error(foreign.status);
    expect(foreign.conversationId).not.toBe(first.conversationId);
  });

  it('stores robots and the loop guard with the codes of the e-mail module', async () => {
    const { ctx } = get();
    const box = await mailbox();
    expect(await receiveMail(ctx, box, mail({ from: 'MAILER-DAEMON@kunde.example' }))).toMatchObject({
      status: 'skipped',
      reason: 'mailer_daemon',
    });
    expect(
      await receiveMail(ctx, box, mail({ headers: { 'list-id': ['<news.kunde.example>'] } })),
    ).toMatchObject({ status: 'skipped', reason: 'mailing_list' });
    expect(await receiveMail(ctx, box, mail({ from: 'hello@example.test' }))).toMatchObject({
      status: 'skipped',
      reason: 'own_address',
    });
    const answered = await receiveMail(
      ctx,
      box,
      mail({ from: 'anna@kunde.example', text: 'Haben Sie Platz?' }),
    );
    expect(answered.status).toBe('answered');
    // The same text again (another Message-ID) within ten minutes.
    expect(
      await receiveMail(ctx, box, mail({ from: 'anna@kunde.example', text: 'haben  Sie Platz?' })),
    ).toMatchObject({ status: 'skipped', reason: 'duplicate_body' });
    // Our own reply coming back.
    const ours = await outboundIdOf(answered.inboundId);
    expect(
      await receiveMail(ctx, box, mail({ messageId: ours, from: 'weiter@kunde.example' })),
    ).toMatchObject({ status: 'skipped', reason: 'own_message_id' });
    // The hourly cap.
    const cap = ctx.config.email.replyCapHour;
    ctx.config.email.replyCapHour = 1;
    try {
      expect(
        await receiveMail(ctx, box, mail({ from: 'anna@kunde.example', text: 'Und am Sonntag?' })),
      ).toMatchObject({ status: 'skipped', reason: 'hourly_cap' });
    } finally {
      ctx.config.email.replyCapHour = cap;
    }
  });

  it('reasons stored under earlier names stay readable', () => {
    expect(canonicalSkipReason('bounce')).toBe('delivery_report');
    expect(canonicalSkipReason('sender_hourly_cap')).toBe('hourly_cap');
    expect(mailSkipReasonText('precedence_bulk', 'en')).toBe('Bulk or list mail (Precedence)');
    expect(mailSkipReasonText('mailer_daemon', 'de')).toContain('MAILER-DAEMON');
    expect(mailSkipReasonText('Something else', 'de')).toBe('Something else');
  });
});
