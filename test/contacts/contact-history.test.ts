import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { seedConversation } from '../conversations/seed.js';
import { bookOk, buildContact, createEvent } from '../events/fixtures.js';

describeApp("a contact's bookings and leads", (get) => {
  const read = (url: string, headers: Record<string, string> | undefined) =>
    get().app.inject({ method: 'GET', url, ...(headers ? { headers } : {}) });
  const lead = (tenant: TenantFixture, conversationId: string, payload: object) =>
    get().app.inject({
      method: 'POST',
      url: '/webhooks/lead-generated',
      headers: tenant.keyHeaders,
      payload: { conversation_id: conversationId, ...payload },
    });

  it('lists the bookings of a contact with their events, newest first, in pages', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const person = await buildContact(ctx, tenant.id, { name: 'Clara' });
    const bystander = await buildContact(ctx, tenant.id);
    const yoga = await createEvent(app, tenant, { title: 'Yoga', price: 12.5, currency: 'EUR' }, 'selling');
    const pilates = await createEvent(app, tenant, { title: 'Pilates', event_date: '2030-07-01' }, 'selling');
    await bookOk(app, tenant, yoga.id, person.id);
    await bookOk(app, tenant, pilates.id, person.id);
    await bookOk(app, tenant, pilates.id, bystander.id);

    const res = await read(`/api/contacts/${person.id}/bookings`, tenant.owner.headers);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.next_cursor).toBeNull();
    expect(body.data).toHaveLength(2);
    expect(body.data[0]).toMatchObject({
      event_id: pilates.id,
      event_title: 'Pilates',
      event_date: '2030-07-01',
      event_status: 'selling',
      status: 'confirmed',
      payment_status: 'not_required',
      currency: 'EUR',
      booking_channel: 'manual',
      cancelled_at: null,
    });
    expect(body.data[1]).toMatchObject({ event_title: 'Yoga', event_date: '2030-06-01' });

    const first = (await read(`/api/contacts/${person.id}/bookings?limit=1`, tenant.owner.headers)).json();
    expect(first.data.map((b: { event_title: string }) => b.event_title)).toEqual(['Pilates']);
    const second = await read(
      `/api/contacts/${person.id}/bookings?limit=1&cursor=${first.next_cursor}`,
      tenant.owner.headers,
    );
    expect(second.json().data.map((b: { event_title: string }) => b.event_title)).toEqual(['Yoga']);
    expect(second.json().next_cursor).toBeNull();
  });

  it('lists the conversations a recorded lead linked to the contact', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot({ name: 'Salon-Bot' });
    const linked = await seedConversation(ctx.db, tenant.id, bot.id, { senderId: 'wa:1', messages: 2 });
    await seedConversation(ctx.db, tenant.id, bot.id, { senderId: 'wa:2' });
    const recorded = await lead(tenant, linked.id, { name: 'Lea Lang', email: 'lea@example.test' });
    expect(recorded.statusCode, recorded.body).toBe(200);
    const contactId = recorded.json().contact.id;

    const res = await read(`/api/contacts/${contactId}/leads`, tenant.owner.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: [
        {
          conversation_id: linked.id,
          bot_id: bot.id,
          bot_name: 'Salon-Bot',
          channel: 'api',
          sender_id: 'wa:1',
          status: 'active',
          message_count: 2,
          last_message_at: expect.any(String),
          created_at: expect.any(String),
        },
      ],
      next_cursor: null,
    });
  });

  it('answers empty lists for a contact without bookings or leads', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const person = await buildContact(ctx, tenant.id);
    for (const list of ['bookings', 'leads']) {
      const res = await read(`/api/contacts/${person.id}/${list}`, tenant.owner.headers);
      expect(res.json(), list).toEqual({ data: [], next_cursor: null });
    }
  });

  it('refuses a bad cursor and a bad limit with 400', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const person = await buildContact(ctx, tenant.id);
    for (const list of ['bookings', 'leads']) {
      for (const query of ['cursor=nonsense', 'limit=0', 'limit=101', 'extra=1']) {
        const res = await read(`/api/contacts/${person.id}/${list}?${query}`, tenant.owner.headers);
        expect(res.statusCode, `${list}?${query}`).toBe(400);
        expect(res.json().error).toBe('validation_error');
      }
    }
  });

  it('needs a session (401, also for API keys), is open to every role, and hides other tenants (404)', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const person = await buildContact(ctx, tenant.id);
    const foreign = await buildContact(ctx, other.id);
    const foreignEvent = await createEvent(app, other, {}, 'selling');
    await bookOk(app, other, foreignEvent.id, foreign.id);
    const viewer = await tenant.user('viewer');
    for (const list of ['bookings', 'leads']) {
      const url = `/api/contacts/${person.id}/${list}`;
      expect((await read(url, undefined)).statusCode, list).toBe(401);
      expect((await read(url, tenant.keyHeaders)).statusCode, list).toBe(401);
      // Every role holds contact:view; no role is refused (403) here.
      expect((await read(url, viewer.headers)).statusCode, list).toBe(200);
      for (const id of [foreign.id, 'nope', randomUUID()]) {
        const res = await read(`/api/contacts/${id}/${list}`, tenant.owner.headers);
        expect(res.statusCode, `${list} ${id}`).toBe(404);
        expect(res.json().error).toBe('not_found');
      }
    }
    const own = await read(`/api/contacts/${foreign.id}/bookings`, other.owner.headers);
    expect(own.json().data).toHaveLength(1);
  });
});
