import { expect, it } from 'vitest';
import {
  findOrCreateContactBySender,
  findOrCreateContactByIdentity,
} from '../../src/modules/contacts/repository.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { seedConversation } from '../conversations/seed.js';
import { bookOk, buildContact, createEvent, getEvent } from '../events/fixtures.js';

describeApp('contacts as people', (get) => {
  const req = (
    tenant: TenantFixture,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: object,
    headers: Record<string, string> | null = tenant.owner.headers,
  ) => get().app.inject({ method, url, ...(headers ? { headers } : {}), ...(payload ? { payload } : {}) });

  it('keeps one contact per e-mail (any case) and per phone number (E.164) within a tenant', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const first = await req(tenant, 'POST', '/api/contacts', {
      name: 'Erika',
      email: 'Erika@Example.test',
      phone: '030 123456',
    });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().phone).toBe('+4930123456');
    const sameMail = await req(tenant, 'POST', '/api/contacts', { email: 'erika@example.TEST' });
    expect(sameMail.statusCode).toBe(409);
    expect(sameMail.json()).toMatchObject({ code: 'email_taken', details: { field: 'email' } });
    const samePhone = await req(tenant, 'POST', '/api/contacts', { phone: '+49 (30) 12 34 56' });
    expect(samePhone.statusCode).toBe(409);
    expect(samePhone.json().code).toBe('phone_taken');
    const second = await req(tenant, 'POST', '/api/contacts', { name: 'Max', email: 'max@example.test' });
    const edit = await req(tenant, 'PUT', `/api/contacts/${second.json().id}`, {
      email: 'ERIKA@example.test',
    });
    expect(edit.statusCode).toBe(409);
    expect(edit.json().code).toBe('email_taken');
    expect((await req(tenant, 'GET', `/api/contacts/${second.json().id}`)).json().email).toBe(
      'max@example.test',
    );
    // Another tenant may know the same person.
    expect((await req(other, 'POST', '/api/contacts', { email: 'erika@example.test' })).statusCode).toBe(201);
    const bad = await req(tenant, 'POST', '/api/contacts', { phone: '12' + '3'.repeat(20) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('phone_invalid');
  });

  it('resolves the booking form to the existing person: 200 found, 201 created, 400 without address', async () => {
    const { app } = get();
    const tenant = await buildTenant(get().ctx);
    const created = await req(tenant, 'POST', '/api/contacts/resolve', {
      name: 'Clara',
      email: 'clara@example.test',
    });
    expect(created.statusCode, created.body).toBe(201);
    const again = await req(tenant, 'POST', '/api/contacts/resolve', {
      name: 'C.',
      email: 'CLARA@example.test',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id: created.json().id, name: 'Clara' });
    const byPhone = await req(tenant, 'POST', '/api/contacts/resolve', { phone: '+41 44 668 18 00' });
    expect(byPhone.statusCode).toBe(201);
    expect(byPhone.json().phone).toBe('+41446681800');
    expect(
      (await req(tenant, 'POST', '/api/contacts/resolve', { phone: '0041 44 668 18 00' })).json().id,
    ).toBe(byPhone.json().id);
    const none = await req(tenant, 'POST', '/api/contacts/resolve', { name: 'Only a name' });
    expect(none.statusCode).toBe(400);
    expect(none.json().code).toBe('either_field');
    expect(
      (await req(tenant, 'POST', '/api/contacts/resolve', { email: 'x@example.test' }, null)).statusCode,
    ).toBe(401);
    const viewer = await tenant.user('viewer');
    expect(
      (await req(tenant, 'POST', '/api/contacts/resolve', { email: 'x@example.test' }, viewer.headers))
        .statusCode,
    ).toBe(403);
    // Booking twice from the event page with the same address books one person.
    const event = await createEvent(app, tenant, {}, 'selling');
    await bookOk(app, tenant, event.id, again.json().id);
    const count = await get().ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM contacts WHERE tenant_id = $1',
      [tenant.id],
    );
    expect(count[0]!.n).toBe(2);
  });

  it('makes ONE contact when two bookings of the same new e-mail arrive at once', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const responses = await Promise.all(
      [1, 2, 3].map((n) =>
        req(tenant, 'POST', '/api/contacts/resolve', { name: `Racer ${n}`, email: 'new@example.test' }),
      ),
    );
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 200, 201]);
    // The same in two open transactions at once (the repository the bookings use).
    const both = await Promise.all(
      [1, 2].map(() =>
        ctx.db.transaction((tx) =>
          findOrCreateContactByIdentity(tx, tenant.id, {
            name: null,
            email: 'race@example.test',
            phone: null,
            channel: 'manual',
          }),
        ),
      ),
    );
    expect(both[0]!.contact.id).toBe(both[1]!.contact.id);
    expect(both.filter((b) => b.created)).toHaveLength(1);
  });

  it("lets the bot's booking find the contact that has the sender's address or number", async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const erika = await buildContact(ctx, tenant.id, {
      email: 'erika@example.test',
      phone: '+4917612345678',
    });
    const byMail = await ctx.db.transaction((tx) =>
      findOrCreateContactBySender(tx, tenant.id, { senderId: 'Erika@example.test', channel: 'email' }),
    );
    expect(byMail.id).toBe(erika.id);
    const byPhone = await ctx.db.transaction((tx) =>
      findOrCreateContactBySender(tx, tenant.id, { senderId: '+49 176 12345678', channel: 'whatsapp' }),
    );
    expect(byPhone.id).toBe(erika.id);
    const stranger = await ctx.db.transaction((tx) =>
      findOrCreateContactBySender(tx, tenant.id, { senderId: 'api-user-7', channel: 'api' }),
    );
    expect(stranger.id).not.toBe(erika.id);
  });

  it('merges bookings, leads and conversations into one contact, refusing a booking clash in words', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const keep = await buildContact(ctx, tenant.id, { name: 'Erika', email: 'erika@example.test' });
    const dupe = await buildContact(ctx, tenant.id, {
      name: null,
      phone: '+4930123456',
      sender_id: 'wa-erika',
      metadata: { source: 'whatsapp' },
    });
    const yoga = await createEvent(app, tenant, { title: 'Yoga' }, 'selling');
    const pilates = await createEvent(app, tenant, { title: 'Pilates' }, 'selling');
    await bookOk(app, tenant, yoga.id, keep.id);
    await bookOk(app, tenant, pilates.id, dupe.id);
    await bookOk(app, tenant, yoga.id, dupe.id);
    const chat = await seedConversation(ctx.db, tenant.id, bot.id, { senderId: 'wa-erika', messages: 2 });

    const clash = await req(tenant, 'POST', `/api/contacts/${keep.id}/merge`, { contact_id: dupe.id });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject({
      code: 'merge_booking_conflict',
      details: { event_ids: [yoga.id] },
    });
    expect(clash.json().message).toContain("'Yoga'");
    // Nothing changed.
    expect((await req(tenant, 'GET', `/api/contacts/${dupe.id}`)).statusCode).toBe(200);

    const dupeYoga = (await req(tenant, 'GET', `/api/contacts/${dupe.id}/bookings`))
      .json()
      .data.find((b: { event_id: string }) => b.event_id === yoga.id);
    expect(
      (await req(tenant, 'DELETE', `/api/events/${yoga.id}/bookings/${dupeYoga.id}`)).statusCode,
    ).toBeLessThan(300);

    const merged = await req(tenant, 'POST', `/api/contacts/${keep.id}/merge`, { contact_id: dupe.id });
    expect(merged.statusCode, merged.body).toBe(200);
    expect(merged.json()).toMatchObject({
      id: keep.id,
      name: 'Erika',
      email: 'erika@example.test',
      phone: '+4930123456',
      sender_id: 'wa-erika',
      metadata: { source: 'whatsapp' },
    });
    expect((await req(tenant, 'GET', `/api/contacts/${dupe.id}`)).statusCode).toBe(404);
    const bookings = (await req(tenant, 'GET', `/api/contacts/${keep.id}/bookings`)).json().data;
    expect(bookings).toHaveLength(3);
    const conversations = (await req(tenant, 'GET', `/api/contacts/${keep.id}/conversations`)).json().data;
    expect(conversations.map((c: { id: string }) => c.id)).toEqual([chat.id]);
    expect((await req(tenant, 'GET', `/api/contacts/${keep.id}/leads`)).json().data).toHaveLength(1);
    expect((await getEvent(app, tenant, yoga.id)).capacity_booked).toBe(1);

    const self = await req(tenant, 'POST', `/api/contacts/${keep.id}/merge`, { contact_id: keep.id });
    expect(self.statusCode).toBe(400);
    expect(self.json().code).toBe('merge_same_contact');
  });

  it('guards merge, conversations, export and erase: 401, 403, other tenant 404 / 400', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const own = await buildContact(ctx, tenant.id);
    const own2 = await buildContact(ctx, tenant.id);
    const foreign = await buildContact(ctx, other.id);
    const viewer = await tenant.user('viewer');
    const calls: [method: 'GET' | 'POST', url: (id: string) => string, payload?: object][] = [
      ['POST', (id) => `/api/contacts/${id}/merge`, { contact_id: own2.id }],
      ['GET', (id) => `/api/contacts/${id}/conversations`],
      ['GET', (id) => `/api/contacts/${id}/export`],
      ['POST', (id) => `/api/contacts/${id}/erase`],
    ];
    for (const [method, url, payload] of calls) {
      expect((await req(tenant, method, url(own.id), payload, null)).statusCode).toBe(401);
      expect((await req(tenant, method, url(foreign.id), payload)).statusCode).toBe(404);
      expect((await req(tenant, method, url('not-a-uuid'), payload)).statusCode).toBe(404);
      if (method === 'POST' || url(own.id).endsWith('export')) {
        expect((await req(tenant, method, url(own.id), payload, viewer.headers)).statusCode).toBe(403);
      }
    }
    const foreignSource = await req(tenant, 'POST', `/api/contacts/${own.id}/merge`, {
      contact_id: foreign.id,
    });
    expect(foreignSource.statusCode).toBe(400);
    expect(foreignSource.json().code).toBe('reference_unknown');
    expect((await req(other, 'GET', `/api/contacts/${foreign.id}`)).statusCode).toBe(200);
    expect((await req(tenant, 'GET', `/api/contacts/${own2.id}`)).statusCode).toBe(200);
  });

  it('exports everything of the person and erases it, leaving everyone else untouched', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const person = await buildContact(ctx, tenant.id, {
      name: 'Erika',
      sender_id: 'erika-1',
      email: 'e@example.test',
    });
    const neighbour = await buildContact(ctx, tenant.id, { name: 'Max', sender_id: 'max-1' });
    const event = await createEvent(app, tenant, { title: 'Yoga', capacity_total: 1 }, 'selling');
    await bookOk(app, tenant, event.id, person.id);
    await bookOk(app, tenant, event.id, neighbour.id); // on the waitlist
    const hers = await seedConversation(ctx.db, tenant.id, bot.id, { senderId: 'erika-1', messages: 4 });
    const his = await seedConversation(ctx.db, tenant.id, bot.id, { senderId: 'max-1', messages: 2 });

    // Refused messages: one in her conversation, one of hers that opened none (by e-mail), one of his.
    const refuse = (conversationId: string | null, senderId: string, excerpt: string) =>
      ctx.db.query(
        `INSERT INTO conversation_refusals (tenant_id, conversation_id, channel, sender_id, guard, code, reason, message_excerpt)
         VALUES ($1, $2, 'sms', $3, 'messaging_opt_out', 'opted_out', 'opted_out', $4)`,
        [tenant.id, conversationId, senderId, excerpt],
      );
    await refuse(hers.id, 'erika-1', 'Noch Plätze frei?');
    await refuse(null, ' E@Example.test ', 'Bitte zurückrufen');
    await refuse(his.id, 'max-1', 'Und ich?');

    const exported = await req(tenant, 'GET', `/api/contacts/${person.id}/export`);
    expect(exported.statusCode, exported.body).toBe(200);
    expect(
      exported
        .json()
        .refusals.map((r: { message_excerpt: string; guard: string; conversation_id: string | null }) => [
          r.message_excerpt,
          r.guard,
          r.conversation_id,
        ])
        .sort(),
    ).toEqual(
      [
        ['Bitte zurückrufen', 'messaging_opt_out', null],
        ['Noch Plätze frei?', 'messaging_opt_out', hers.id],
      ].sort(),
    );
    expect(exported.headers['content-disposition']).toContain('attachment');
    const data = exported.json();
    expect(data.contact).toMatchObject({ id: person.id, name: 'Erika', email: 'e@example.test' });
    expect(data.bookings).toHaveLength(1);
    expect(data.bookings[0]).toMatchObject({ event_title: 'Yoga', status: 'confirmed' });
    expect(data.conversations.map((c: { id: string }) => c.id)).toEqual([hers.id]);
    expect(data.conversations[0].messages).toHaveLength(4);
    expect(JSON.stringify(data)).not.toContain('max-1');

    const erased = await req(tenant, 'POST', `/api/contacts/${person.id}/erase`);
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json()).toMatchObject({
      conversations: 1,
      messages: 4,
      bookings: 1,
      cancelled_bookings: 1,
    });

    const left = async (sql: string, params: unknown[]) =>
      (await ctx.db.query<{ n: number }>(sql, params))[0]!.n;
    expect(await left('SELECT count(*)::int AS n FROM contacts WHERE id = $1', [person.id])).toBe(0);
    // Her refusals are gone with her, his stays.
    expect(
      await left('SELECT count(*)::int AS n FROM conversation_refusals WHERE tenant_id = $1', [tenant.id]),
    ).toBe(1);
    expect(await left('SELECT count(*)::int AS n FROM conversations WHERE id = $1', [hers.id])).toBe(0);
    expect(await left('SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1', [hers.id])).toBe(
      0,
    );
    expect(
      await left('SELECT count(*)::int AS n FROM event_bookings WHERE contact_id = $1', [person.id]),
    ).toBe(0);
    // The neighbour keeps everything and moves up from the waitlist into the freed place.
    expect(await left('SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1', [his.id])).toBe(
      2,
    );
    const theirs = (await req(tenant, 'GET', `/api/contacts/${neighbour.id}/bookings`)).json().data;
    expect(theirs).toMatchObject([{ status: 'confirmed' }]);
    expect((await getEvent(app, tenant, event.id)).capacity_booked).toBe(1);
    expect((await req(tenant, 'GET', `/api/contacts/${person.id}/export`)).statusCode).toBe(404);
  });
});
