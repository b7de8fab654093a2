import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { findOrCreateContactBySender } from '../../src/modules/contacts/repository.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { bookOk, buildContact, createEvent, getEvent } from '../events/fixtures.js';

describeApp('contacts API', (get) => {
  const req = (
    tenant: TenantFixture,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: object,
    headers = tenant.owner.headers,
  ) => get().app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  it('creates, reads, updates and deletes a contact', async () => {
    const tenant = await buildTenant(get().ctx);
    const created = await req(tenant, 'POST', '/api/contacts', {
      name: 'Erika Muster',
      email: 'erika@example.test',
      phone: '+49 30 123456',
      sender_id: 'wa:4930123456',
      channel: 'whatsapp',
      metadata: { source: 'Messe' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const contact = created.json();
    expect(contact).toMatchObject({
      name: 'Erika Muster',
      channel: 'whatsapp',
      metadata: { source: 'Messe' },
    });
    expect((await req(tenant, 'GET', `/api/contacts/${contact.id}`)).json()).toEqual({
      ...contact,
      email_bounced: null,
    });
    const updated = await req(tenant, 'PUT', `/api/contacts/${contact.id}`, {
      phone: null,
      name: 'Erika M.',
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ name: 'Erika M.', phone: null, email: 'erika@example.test' });
    expect((await req(tenant, 'DELETE', `/api/contacts/${contact.id}`)).statusCode).toBe(204);
    expect((await req(tenant, 'GET', `/api/contacts/${contact.id}`)).statusCode).toBe(404);
  });

  it.each([
    [{ email: 'not-an-email' }, 'body.email'],
    [{ name: 'x'.repeat(201) }, 'body.name'],
    [{ phone: 'call me' }, 'body.phone'],
    [{ sender_id: 'x'.repeat(256) }, 'body.sender_id'],
    [{ channel: 'fax' }, 'body.channel'],
    [{ nickname: 'E' }, "Unknown field 'nickname'"],
  ])('refuses %o with 400', async (payload, message) => {
    const tenant = await buildTenant(get().ctx);
    const res = await req(tenant, 'POST', '/api/contacts', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(message);
  });

  it('keeps sender_id unique per tenant (409) but not across tenants', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    expect((await req(tenant, 'POST', '/api/contacts', { sender_id: 's-1' })).statusCode).toBe(201);
    const dup = await req(tenant, 'POST', '/api/contacts', { sender_id: 's-1' });
    expect(dup.statusCode).toBe(409);
    expect((await req(other, 'POST', '/api/contacts', { sender_id: 's-1' })).statusCode).toBe(201);
    const second = (await req(tenant, 'POST', '/api/contacts', { sender_id: 's-2' })).json();
    expect((await req(tenant, 'PUT', `/api/contacts/${second.id}`, { sender_id: 's-1' })).statusCode).toBe(
      409,
    );
  });

  it('lists newest first with search and cursor pages', async () => {
    const tenant = await buildTenant(get().ctx);
    for (const name of ['Anna Alt', 'Bernd Berg', 'Clara Alt']) {
      await req(tenant, 'POST', '/api/contacts', { name });
    }
    const list = async (query: string) =>
      (await req(tenant, 'GET', `/api/contacts${query}`)).json<{
        data: { name: string }[];
        next_cursor: string | null;
      }>();
    expect((await list('')).data.map((c) => c.name)).toEqual(['Clara Alt', 'Bernd Berg', 'Anna Alt']);
    expect((await list('?q=alt')).data.map((c) => c.name)).toEqual(['Clara Alt', 'Anna Alt']);
    expect((await list('?q=%25')).data).toEqual([]);
    const page = await list('?limit=2');
    expect(page.data).toHaveLength(2);
    expect((await list(`?limit=2&cursor=${page.next_cursor}`)).data.map((c) => c.name)).toEqual(['Anna Alt']);
  });

  it('refuses deletion while the contact has open bookings, then removes past ones with it', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 1 }, 'selling');
    const person = await buildContact(ctx, tenant.id);
    const booking = await bookOk(app, tenant, event.id, person.id);
    const refused = await req(tenant, 'DELETE', `/api/contacts/${person.id}`);
    expect(refused.statusCode).toBe(409);
    await app.inject({
      method: 'PATCH',
      url: `/api/events/${event.id}/bookings/${booking.id}/status`,
      headers: tenant.owner.headers,
      payload: { status: 'attended' },
    });
    expect((await getEvent(app, tenant, event.id)).capacity_booked).toBe(1);
    expect((await req(tenant, 'DELETE', `/api/contacts/${person.id}`)).statusCode).toBe(204);
    // The counters follow the bookings that went with the contact.
    expect(await getEvent(app, tenant, event.id)).toMatchObject({ capacity_booked: 0 });
  });

  it('guards every route: 401, 403 for viewers writing, 404 across tenants and for malformed ids', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const foreign = await buildContact(ctx, other.id);
    const own = await buildContact(ctx, tenant.id);
    const viewer = await tenant.user('viewer');
    expect((await get().app.inject({ method: 'GET', url: '/api/contacts' })).statusCode).toBe(401);
    expect((await get().app.inject({ method: 'POST', url: '/api/contacts', payload: {} })).statusCode).toBe(
      401,
    );
    expect((await req(tenant, 'GET', '/api/contacts', undefined, viewer.headers)).statusCode).toBe(200);
    expect((await req(tenant, 'POST', '/api/contacts', { name: 'x' }, viewer.headers)).statusCode).toBe(403);
    expect(
      (await req(tenant, 'PUT', `/api/contacts/${own.id}`, { name: 'x' }, viewer.headers)).statusCode,
    ).toBe(403);
    expect(
      (await req(tenant, 'DELETE', `/api/contacts/${own.id}`, undefined, viewer.headers)).statusCode,
    ).toBe(403);
    for (const id of [foreign.id, 'nope', randomUUID()]) {
      expect((await req(tenant, 'GET', `/api/contacts/${id}`)).statusCode).toBe(404);
      expect((await req(tenant, 'PUT', `/api/contacts/${id}`, { name: 'x' })).statusCode).toBe(404);
      expect((await req(tenant, 'DELETE', `/api/contacts/${id}`)).statusCode).toBe(404);
    }
    expect((await req(other, 'GET', `/api/contacts/${foreign.id}`)).json().name).toBe(foreign.name);
  });

  it('finds or creates the contact of a chat sender exactly once under concurrency', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        ctx.db.transaction((tx) =>
          findOrCreateContactBySender(tx, tenant.id, { senderId: 'chat-sender-1', channel: 'api' }),
        ),
      ),
    );
    expect(new Set(results.map((c) => c.id)).size).toBe(1);
    const rows = await ctx.db.query('SELECT 1 FROM contacts WHERE tenant_id = $1', [tenant.id]);
    expect(rows).toHaveLength(1);
  });
});
