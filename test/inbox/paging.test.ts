import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { seedConversation } from '../conversations/seed.js';

describeApp('inbox paging', (get) => {
  async function waiting(tenant: TenantFixture, botId: string, minute: number): Promise<string> {
    const { id } = await seedConversation(get().db, tenant.id, botId, { status: 'handed_over', messages: 1 });
    await get().db.query(
      `UPDATE conversations SET last_message_at = $2, handover_at = $2, handover_reason = 'no_answer' WHERE id = $1`,
      [id, new Date(Date.UTC(2026, 3, 1, 9, minute))],
    );
    return id;
  }

  const page = (tenant: TenantFixture, query: string, headers = tenant.owner.headers) =>
    get().app.inject({ method: 'GET', url: `/api/inbox?${query}`, headers });

  it('pages by latest activity with a cursor: every conversation once, none skipped while new ones arrive', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await waiting(tenant, bot.id, i));
    // Two with the same activity: the id decides.
    ids.push(await waiting(tenant, bot.id, 3));
    const expected = [...ids].reverse(); // newest first; ties by id below
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await page(tenant, `limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{ data: { id: string }[]; next_cursor: string | null }>();
      seen.push(...body.data.map((c) => c.id));
      cursor = body.next_cursor;
      pages += 1;
      // A conversation handed over meanwhile has newer activity: it does not shift later pages.
      if (pages === 1) await waiting(tenant, bot.id, 59);
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(8);
    expect(new Set(seen)).toEqual(new Set(expected));
    // Newest first.
    expect(seen[0]).toBe(ids[6]);
    expect(seen.at(-1)).toBe(ids[0]);
  });

  it('refuses a cursor of another view or a made-up one; needs a session; shows only the own tenant', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    for (let i = 0; i < 3; i++) await waiting(tenant, bot.id, i);
    const first = (await page(tenant, 'limit=1&view=unassigned')).json<{ next_cursor: string }>();
    expect(first.next_cursor).toBeTruthy();
    const crossed = await page(tenant, `limit=1&view=mine&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(crossed.statusCode).toBe(400);
    expect(crossed.json()).toMatchObject({ code: 'cursor_invalid' });
    expect((await page(tenant, 'cursor=bm9wZQ')).statusCode).toBe(400);
    expect((await page(tenant, 'limit=201')).statusCode).toBe(400);
    expect((await page(tenant, 'limit=1', {} as typeof tenant.owner.headers)).statusCode).toBe(401);
    const other = await buildTenant(get().ctx);
    const theirs = await page(other, 'limit=50');
    expect(theirs.json()).toEqual({ data: [], next_cursor: null });
  });
});
