import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { addMailbox, IMAP_MAILBOX } from '../email/mailbox-setup.js';

interface PageBody {
  data: { id: string; status: string; received_at: string }[];
  next_cursor: string | null;
}

describeApp('received mails: cursor paging of a mailbox and of a conversation', (get) => {
  async function setUp() {
    const { ctx, app } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const mailboxId = await addMailbox(app, tenant, bot.id, IMAP_MAILBOX);
    const [conversation] = await ctx.db.query<{ id: string }>(
      `INSERT INTO conversations (tenant_id, bot_id, channel, sender_id) VALUES ($1, $2, 'email', 'kunde@kunde.example')
       RETURNING id`,
      [tenant.id, bot.id],
    );
    return { tenant, bot, mailboxId, conversationId: conversation!.id };
  }

  /** A received mail at a given minute (several may share one): its id. */
  async function mail(
    tenant: TenantFixture,
    mailboxId: string,
    n: number,
    minute: number,
    status: string,
    conversationId: string | null,
  ): Promise<string> {
    const [row] = await get().db.query<{ id: string }>(
      `INSERT INTO email_inbound (tenant_id, mailbox_id, message_id, body_hash, from_address, subject, status,
         skip_reason, conversation_id, received_at)
       VALUES ($1, $2, $3, $4, 'kunde@kunde.example', 'Frage', $5, $6, $7, $8) RETURNING id`,
      [
        tenant.id,
        mailboxId,
        `<m${n}@kunde.example>`,
        String(n).padStart(64, '0'),
        status,
        status === 'skipped' ? 'mailer_daemon' : null,
        conversationId,
        new Date(Date.UTC(2026, 10, 26, 9, minute)),
      ],
    );
    return row!.id;
  }

  /** Every page of a list, in order. */
  async function allPages(tenant: TenantFixture, base: string, limit: number) {
    const seen: string[] = [];
    const pages: PageBody[] = [];
    let cursor: string | null = null;
    do {
      const sep = base.includes('?') ? '&' : '?';
      const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await get().app.inject({
        method: 'GET',
        url: `${base}${sep}limit=${limit}${after}`,
        headers: tenant.owner.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      const body: PageBody = res.json<PageBody>();
      pages.push(body);
      seen.push(...body.data.map((m) => m.id));
      cursor = body.next_cursor;
    } while (cursor && pages.length < 20);
    return { seen, pages };
  }

  /** Newest first, equal times by id (descending), as the lists promise. */
  function newestFirst(rows: { id: string; minute: number }[]): string[] {
    return [...rows]
      .sort((a, b) => b.minute - a.minute || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((r) => r.id);
  }

  it('pages a mailbox newest first, with and without the status filter: no gaps, no repeats, ties by id', async () => {
    const { tenant, bot, mailboxId } = await setUp();
    const rows: { id: string; minute: number; status: string }[] = [];
    // Minutes 5 and 2 are shared by three and two mails: the id decides between them.
    const plan: [number, string][] = [
      [1, 'answered'],
      [2, 'skipped'],
      [2, 'skipped'],
      [3, 'answered'],
      [5, 'skipped'],
      [5, 'answered'],
      [5, 'skipped'],
      [7, 'failed'],
      [8, 'skipped'],
    ];
    for (const [i, [minute, status]] of plan.entries())
      rows.push({ id: await mail(tenant, mailboxId, i, minute, status, null), minute, status });
    const base = `/api/bots/${bot.id}/mailboxes/${mailboxId}/mails`;

    const all = await allPages(tenant, base, 2);
    expect(all.pages).toHaveLength(5);
    expect(all.pages.at(-1)!.next_cursor).toBeNull();
    expect(all.seen).toEqual(newestFirst(rows));

    const skipped = await allPages(tenant, `${base}?status=skipped`, 2);
    expect(skipped.pages).toHaveLength(3);
    expect(skipped.seen).toEqual(newestFirst(rows.filter((r) => r.status === 'skipped')));
    expect(skipped.pages.flatMap((p) => p.data).every((m) => m.status === 'skipped')).toBe(true);

    // A mail arriving while a client pages does not shift the later pages.
    const first = (
      await get().app.inject({ method: 'GET', url: `${base}?limit=4`, headers: tenant.owner.headers })
    ).json<PageBody>();
    await mail(tenant, mailboxId, 99, 30, 'answered', null);
    const second = (
      await get().app.inject({
        method: 'GET',
        url: `${base}?limit=4&cursor=${encodeURIComponent(first.next_cursor!)}`,
        headers: tenant.owner.headers,
      })
    ).json<PageBody>();
    expect([...first.data, ...second.data].map((m) => m.id)).toEqual(newestFirst(rows).slice(0, 8));

    // Without a limit a page holds 20.
    const whole = (
      await get().app.inject({ method: 'GET', url: base, headers: tenant.owner.headers })
    ).json<PageBody>();
    expect(whole.data).toHaveLength(10);
    expect(whole.next_cursor).toBeNull();
  });

  it('pages the mails of a conversation', async () => {
    const { tenant, mailboxId, conversationId } = await setUp();
    const rows: { id: string; minute: number }[] = [];
    for (const [i, minute] of [1, 4, 4, 4, 6, 9, 9].entries())
      rows.push({ id: await mail(tenant, mailboxId, i, minute, 'answered', conversationId), minute });
    await mail(tenant, mailboxId, 50, 5, 'skipped', null); // not in the conversation
    const { seen, pages } = await allPages(tenant, `/api/conversations/${conversationId}/mails`, 3);
    expect(pages).toHaveLength(3);
    expect(seen).toEqual(newestFirst(rows));
  });

  it('refuses a made-up cursor or one of the other list with 400 and the usual error body', async () => {
    const { tenant, bot, mailboxId, conversationId } = await setUp();
    for (let i = 0; i < 3; i++) await mail(tenant, mailboxId, i, i, 'answered', conversationId);
    const mailboxUrl = `/api/bots/${bot.id}/mailboxes/${mailboxId}/mails`;
    const conversationUrl = `/api/conversations/${conversationId}/mails`;
    const get1 = (url: string) => get().app.inject({ method: 'GET', url, headers: tenant.owner.headers });
    const mailboxCursor = (await get1(`${mailboxUrl}?limit=1`)).json<PageBody>().next_cursor!;
    const conversationCursor = (await get1(`${conversationUrl}?limit=1`)).json<PageBody>().next_cursor!;
    const forged = Buffer.from(JSON.stringify({ l: 'mailbox_mails', p: ['yesterday', 'x'] })).toString(
      'base64url',
    );
    for (const url of [
      `${mailboxUrl}?cursor=bm90IGEgY3Vyc29y`,
      `${mailboxUrl}?cursor=${encodeURIComponent(conversationCursor)}`,
      `${mailboxUrl}?status=skipped&cursor=${forged}`,
      `${conversationUrl}?cursor=${encodeURIComponent(mailboxCursor)}`,
      `${conversationUrl}?cursor=%7B%7D`,
    ]) {
      const res = await get1(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({
        error: 'validation_error',
        code: 'cursor_invalid',
        details: { field: 'cursor' },
        message: expect.stringContaining('cursor'),
      });
    }
    for (const url of [`${mailboxUrl}?limit=0`, `${mailboxUrl}?limit=101`, `${conversationUrl}?limit=101`]) {
      const res = await get1(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details.field, url).toBe('limit');
    }
  });

  it('401 without a session, 403 without bot:view, 404 for another tenant (cursor or not)', async () => {
    const { tenant, bot, mailboxId, conversationId } = await setUp();
    for (let i = 0; i < 3; i++) await mail(tenant, mailboxId, i, i, 'answered', conversationId);
    const mailboxUrl = `/api/bots/${bot.id}/mailboxes/${mailboxId}/mails`;
    const conversationUrl = `/api/conversations/${conversationId}/mails`;
    const cursor = (
      await get().app.inject({ method: 'GET', url: `${mailboxUrl}?limit=1`, headers: tenant.owner.headers })
    ).json<PageBody>().next_cursor!;
    const conversationCursor = (
      await get().app.inject({
        method: 'GET',
        url: `${conversationUrl}?limit=1`,
        headers: tenant.owner.headers,
      })
    ).json<PageBody>().next_cursor!;
    for (const url of [mailboxUrl, `${mailboxUrl}?cursor=${encodeURIComponent(cursor)}`, conversationUrl]) {
      expect((await get().app.inject({ method: 'GET', url })).statusCode, url).toBe(401);
    }
    const agent = await tenant.user('agent');
    const byAgent = await get().app.inject({
      method: 'GET',
      url: `${mailboxUrl}?cursor=${encodeURIComponent(cursor)}`,
      headers: agent.headers,
    });
    expect(byAgent.statusCode).toBe(403);
    // An agent may read a conversation, and so its mails.
    const agentConversation = await get().app.inject({
      method: 'GET',
      url: `${conversationUrl}?limit=2`,
      headers: agent.headers,
    });
    expect(agentConversation.statusCode).toBe(200);
    expect(agentConversation.json<PageBody>().data).toHaveLength(2);

    const other = await buildTenant(get().ctx);
    const otherBot = await other.bot();
    for (const url of [
      mailboxUrl,
      `${mailboxUrl}?cursor=${encodeURIComponent(cursor)}`,
      `/api/bots/${otherBot.id}/mailboxes/${mailboxId}/mails?cursor=${encodeURIComponent(cursor)}`,
      conversationUrl,
      `${conversationUrl}?cursor=${encodeURIComponent(conversationCursor)}`,
    ]) {
      const res = await get().app.inject({ method: 'GET', url, headers: other.owner.headers });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('kunde@kunde.example');
    }
  });
});
