import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { seedConversation } from './seed.js';

interface ConversationBody {
  id: string;
  bot_id: string;
  channel: string;
  sender_id: string | null;
  [field: string]: unknown;
}
interface PageBody {
  data: ConversationBody[];
  next_cursor: string | null;
}
interface MessageBody {
  id: string;
  role: string;
  content: string;
}

/** The same read endpoints exist for API keys (/v1) and dashboard sessions (/api). */
const SURFACES = [
  { base: '/v1/conversations', headers: (t: TenantFixture) => t.keyHeaders },
  { base: '/api/conversations', headers: (t: TenantFixture) => t.owner.headers },
] as const;

describeApp('conversations', (get) => {
  const fetch = (url: string, headers: Record<string, string>) =>
    get().app.inject({ method: 'GET', url, headers });

  for (const surface of SURFACES) {
    const { base } = surface;

    async function ids(tenant: TenantFixture, query: string, limit = 2): Promise<string[]> {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const res = await fetch(`${base}?limit=${limit}${query}${suffix}`, surface.headers(tenant));
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json<PageBody>();
        seen.push(...body.data.map((c) => c.id));
        cursor = body.next_cursor;
      } while (cursor);
      return seen;
    }

    it(`${base}: pages newest first without duplicates or gaps, stable under inserts`, async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const created: string[] = [];
      for (let i = 0; i < 7; i += 1) {
        const at = new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
        created.push((await seedConversation(get().db, tenant.id, bot.id, { createdAt: at })).id);
      }
      const first = await fetch(`${base}?limit=3`, surface.headers(tenant));
      const page = first.json<PageBody>();
      expect(page.data.map((c) => c.id)).toEqual(created.slice(4).reverse());
      // New conversations arrive while the client pages on.
      await seedConversation(get().db, tenant.id, bot.id);
      await seedConversation(get().db, tenant.id, bot.id);
      const rest: string[] = [];
      let cursor = page.next_cursor;
      while (cursor) {
        const res = await fetch(
          `${base}?limit=3&cursor=${encodeURIComponent(cursor)}`,
          surface.headers(tenant),
        );
        rest.push(...res.json<PageBody>().data.map((c) => c.id));
        cursor = res.json<PageBody>().next_cursor;
      }
      expect(rest).toEqual(created.slice(0, 4).reverse());
    });

    it(`${base}: filters by bot_id, channel, sender_id, status, from and to`, async () => {
      const tenant = await buildTenant(get().ctx);
      const other = await buildTenant(get().ctx);
      const botA = await tenant.bot();
      const botB = await tenant.bot();
      const foreignBot = await other.bot();
      await seedConversation(get().db, other.id, foreignBot.id, { createdAt: '2026-04-10T12:00:00Z' });
      const seed = (botId: string, input: Parameters<typeof seedConversation>[3]) =>
        seedConversation(get().db, tenant.id, botId, input).then((c) => c.id);
      const a1 = await seed(botA.id, {
        channel: 'email',
        senderId: 'anna@example.test',
        createdAt: '2026-04-01T08:00:00Z',
      });
      const a2 = await seed(botA.id, {
        channel: 'api',
        senderId: 'crm-7',
        createdAt: '2026-04-15T23:30:00Z',
      });
      const b1 = await seed(botB.id, {
        channel: 'webhook',
        senderId: 'anna@example.test',
        status: 'ended',
        createdAt: '2026-04-16T00:00:00Z',
      });
      const b2 = await seed(botB.id, { channel: 'api', createdAt: '2026-05-02T10:00:00Z' });
      const cases: [string, string[]][] = [
        ['', [b2, b1, a2, a1]],
        [`&bot_id=${botA.id}`, [a2, a1]],
        [`&bot_id=${foreignBot.id}`, []],
        ['&channel=api', [b2, a2]],
        ['&channel=email', [a1]],
        ['&sender_id=anna%40example.test', [b1, a1]],
        ['&status=ended', [b1]],
        ['&from=2026-04-15', [b2, b1, a2]],
        ['&to=2026-04-15', [a2, a1]],
        ['&from=2026-04-15&to=2026-04-30', [b1, a2]],
        ['&from=2026-04-15T23:30:00Z&to=2026-04-16T00:00:00Z', [b1, a2]],
        ['&from=2026-04-16T01:45:00%2B02:00', [b2, b1]],
        [`&bot_id=${botB.id}&channel=api&from=2026-05-01`, [b2]],
      ];
      for (const [query, expected] of cases) {
        expect(await ids(tenant, query), query).toEqual(expected);
      }
    });

    it.each([
      ['bot_id=nope', 'bot_id'],
      ['channel=fax', 'channel'],
      ['status=open', 'status'],
      ['from=2026-02-30', 'from'],
      ['to=tomorrow', 'to'],
      ['from=2026-05-02&to=2026-05-01', "'to' must not lie before 'from'"],
      ['limit=101', 'limit'],
      ['cursor=bm90IGEgY3Vyc29y', 'cursor'],
      ['botId=x', "Unknown field 'botId'"],
    ])(`${base}: refuses %s with 400`, async (query, text) => {
      const tenant = await buildTenant(get().ctx);
      const res = await fetch(`${base}?${query}`, surface.headers(tenant));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining(text) });
      // The refused query parameter is named for the client (schema validation and own rules).
      expect(res.json().details.field).toBe(query.includes('&') ? 'to' : query.split('=')[0]);
      expect(res.json().code).toMatch(/^(field_|date_range_order|cursor_invalid)/);
    });

    it(`${base}/:id: returns the conversation with its messages oldest first, paginated`, async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const conversation = await seedConversation(get().db, tenant.id, bot.id, {
        messages: 7,
        senderId: 'crm-1',
        channel: 'email',
      });
      const res = await fetch(`${base}/${conversation.id}`, surface.headers(tenant));
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({
        id: conversation.id,
        bot_id: bot.id,
        channel: 'email',
        sender_id: 'crm-1',
        message_count: 7,
        metadata: { source: 'test' },
        next_cursor: null,
      });
      expect(body).not.toHaveProperty('tenant_id');
      expect(body.messages.map((m: MessageBody) => m.id)).toEqual(conversation.messageIds);
      expect(body.messages[0]).toMatchObject({
        role: 'user',
        content: 'user message 1',
        tokens: 10,
        model: null,
      });
      expect(body.messages[1]).toMatchObject({ role: 'assistant', model: 'offline' });
      expect(body.messages[0]).not.toHaveProperty('seq');

      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const page = await fetch(`${base}/${conversation.id}?limit=3${suffix}`, surface.headers(tenant));
        expect(page.statusCode).toBe(200);
        pages.push(page.json().messages.map((m: MessageBody) => m.id));
        cursor = page.json().next_cursor;
      } while (cursor);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(conversation.messageIds);
    });

    it(`${base}/:id: refuses a message cursor of another conversation`, async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const one = await seedConversation(get().db, tenant.id, bot.id, { messages: 3 });
      const two = await seedConversation(get().db, tenant.id, bot.id, { messages: 3 });
      const page = await fetch(`${base}/${one.id}?limit=1`, surface.headers(tenant));
      const cursor = encodeURIComponent(page.json().next_cursor);
      const res = await fetch(`${base}/${two.id}?cursor=${cursor}`, surface.headers(tenant));
      expect(res.statusCode).toBe(400);
    });

    it(`${base}: hides other tenants' conversations (404) and answers 401 without credentials`, async () => {
      const mine = await buildTenant(get().ctx);
      const other = await buildTenant(get().ctx);
      const foreignBot = await other.bot();
      const foreign = await seedConversation(get().db, other.id, foreignBot.id, { messages: 2 });
      const res = await fetch(`${base}/${foreign.id}`, surface.headers(mine));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: 'not_found',
        code: 'not_found',
        message: 'Conversation not found',
        details: { resource: 'conversation' },
      });
      expect((await fetch(`${base}/not-a-uuid`, surface.headers(mine))).statusCode).toBe(404);
      const list = await fetch(base, surface.headers(mine));
      expect(list.json()).toEqual({ data: [], next_cursor: null });
      expect((await fetch(base, {})).statusCode).toBe(401);
      expect((await fetch(`${base}/${foreign.id}`, {})).statusCode).toBe(401);
    });
  }

  it('keeps the two kinds of credentials apart', async () => {
    const tenant = await buildTenant(get().ctx);
    expect((await fetch('/v1/conversations', tenant.owner.headers)).statusCode).toBe(401);
    expect((await fetch('/api/conversations', tenant.keyHeaders)).statusCode).toBe(401);
  });

  it('lets every dashboard role view conversations (all roles hold conversation:view)', async () => {
    const tenant = await buildTenant(get().ctx);
    for (const role of ['viewer', 'editor', 'admin'] as const) {
      const user = await tenant.user(role);
      expect((await fetch('/api/conversations', user.headers)).statusCode, role).toBe(200);
    }
  });
});
