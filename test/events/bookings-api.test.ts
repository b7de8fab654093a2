import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import {
  book,
  bookingsOf,
  bookOk,
  buildContact,
  createEvent,
  getEvent,
  setStatus,
  type BookingJson,
} from './fixtures.js';

describeApp('event bookings API', (get) => {
  const contact = async (tenant: TenantFixture) => (await buildContact(get().ctx, tenant.id)).id;
  const patchStatus = (tenant: TenantFixture, eventId: string, bookingId: string, status: string) =>
    get().app.inject({
      method: 'PATCH',
      url: `/api/events/${eventId}/bookings/${bookingId}/status`,
      headers: tenant.owner.headers,
      payload: { status },
    });
  const cancel = (tenant: TenantFixture, eventId: string, bookingId: string) =>
    get().app.inject({
      method: 'DELETE',
      url: `/api/events/${eventId}/bookings/${bookingId}`,
      headers: tenant.owner.headers,
    });

  it('confirms while places are free, then queues with running positions, then refuses', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 2, waitlist_max: 2 }, 'selling');
    const results: BookingJson[] = [];
    for (let i = 0; i < 4; i += 1) results.push(await bookOk(app, tenant, event.id, await contact(tenant)));
    expect(results.map((b) => [b.status, b.waitlist_position])).toEqual([
      ['confirmed', null],
      ['confirmed', null],
      ['waitlist', 1],
      ['waitlist', 2],
    ]);
    expect(results[0]).toMatchObject({
      booking_channel: 'manual',
      payment_status: 'not_required',
      payment_url: null,
    });
    const refused = await book(app, tenant, event.id, await contact(tenant));
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: 'conflict', details: { reason: 'fully_booked' } });
    expect(await getEvent(app, tenant, event.id)).toMatchObject({
      capacity_booked: 2,
      capacity_waitlist: 2,
      status: 'waitlist',
    });
  });

  it('stores channel and metadata', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, {}, 'selling');
    const res = await book(app, tenant, event.id, await contact(tenant), {
      channel: 'whatsapp',
      metadata: { seat: 3 },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ booking_channel: 'whatsapp', metadata: { seat: 3 } });
    const bad = await book(app, tenant, event.id, await contact(tenant), { channel: 'fax' });
    expect(bad.statusCode).toBe(400);
  });

  it('allows one open booking per contact and event, again after a cancellation', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 5 }, 'selling');
    const person = await contact(tenant);
    const first = await bookOk(app, tenant, event.id, person);
    const again = await book(app, tenant, event.id, person);
    expect(again.statusCode).toBe(409);
    expect(again.json().details).toEqual({ booking_id: first.id });
    expect((await cancel(tenant, event.id, first.id)).statusCode).toBe(200);
    const rebooked = await bookOk(app, tenant, event.id, person);
    expect(rebooked.id).not.toBe(first.id);
    await expect(
      ctx.db.query(
        `INSERT INTO event_bookings (tenant_id, event_id, contact_id, status) VALUES ($1, $2, $3, 'confirmed')`,
        [tenant.id, event.id, person],
      ),
    ).rejects.toThrow();
  });

  it('accepts bookings only while selling or waitlist and before the deadline', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const draft = await createEvent(app, tenant);
    const res = await book(app, tenant, draft.id, await contact(tenant));
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toContain("'draft'");
    for (const status of ['completed', 'cancelled']) {
      const event = await createEvent(app, tenant, {}, 'selling');
      await setStatus(app, tenant, event.id, status);
      expect((await book(app, tenant, event.id, await contact(tenant))).statusCode).toBe(409);
    }
    const past = await createEvent(app, tenant, { booking_deadline: '2020-01-01T00:00:00Z' }, 'selling');
    const late = await book(app, tenant, past.id, await contact(tenant));
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toContain('deadline');
    expect(await bookingsOf(ctx, past.id)).toHaveLength(0);
  });

  it('refuses a contact of another tenant and an unknown contact', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const event = await createEvent(app, tenant, {}, 'selling');
    for (const id of [await contact(other), randomUUID()]) {
      const res = await book(app, tenant, event.id, id);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain('contact_id');
    }
    expect((await book(app, tenant, event.id, 'nope')).statusCode).toBe(400);
  });

  it('walks every allowed booking transition and refuses the others with 409', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 3 }, 'selling');
    const [a, b, c] = [
      await bookOk(app, tenant, event.id, await contact(tenant)),
      await bookOk(app, tenant, event.id, await contact(tenant)),
      await bookOk(app, tenant, event.id, await contact(tenant)),
    ];
    const queued = await bookOk(app, tenant, event.id, await contact(tenant));
    expect(queued.status).toBe('waitlist');

    // waitlist → confirmed happens only by moving up.
    const manualUp = await patchStatus(tenant, event.id, queued.id, 'confirmed');
    expect(manualUp.statusCode).toBe(409);
    expect(manualUp.json().details).toEqual({ current_status: 'waitlist', requested_status: 'confirmed' });
    for (const to of ['attended', 'no_show', 'waitlist']) {
      expect((await patchStatus(tenant, event.id, queued.id, to)).statusCode, `waitlist → ${to}`).toBe(409);
    }
    expect((await patchStatus(tenant, event.id, a!.id, 'waitlist')).statusCode).toBe(409);
    expect((await patchStatus(tenant, event.id, a!.id, 'confirmed')).statusCode).toBe(409);

    expect((await patchStatus(tenant, event.id, a!.id, 'attended')).json().booking.status).toBe('attended');
    expect((await patchStatus(tenant, event.id, b!.id, 'no_show')).json().booking.status).toBe('no_show');
    const cancelled = await patchStatus(tenant, event.id, c!.id, 'cancelled');
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().booking).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });
    // confirmed → cancelled moved the waitlist booking up.
    expect(cancelled.json().promoted).toEqual([
      expect.objectContaining({ id: queued.id, status: 'confirmed' }),
    ]);

    const late = await bookOk(app, tenant, event.id, await contact(tenant));
    expect(late.status).toBe('waitlist');
    expect((await patchStatus(tenant, event.id, late.id, 'cancelled')).json().booking.status).toBe(
      'cancelled',
    );

    for (const final of [a!, b!, c!, late]) {
      for (const to of ['confirmed', 'waitlist', 'cancelled', 'attended', 'no_show']) {
        const res = await patchStatus(tenant, event.id, final.id, to);
        expect(res.statusCode, `${final.id} → ${to}`).toBe(409);
      }
    }
    expect((await cancel(tenant, event.id, a!.id)).statusCode).toBe(409);
    const invalid = await patchStatus(tenant, event.id, queued.id, 'lost');
    expect(invalid.statusCode).toBe(400);
  });

  it('moves the first waitlist booking up on a cancellation and keeps positions contiguous', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 2 }, 'selling');
    const confirmed = [await bookOk(app, tenant, event.id, await contact(tenant))];
    confirmed.push(await bookOk(app, tenant, event.id, await contact(tenant)));
    const queue: BookingJson[] = [];
    for (let i = 0; i < 4; i += 1) queue.push(await bookOk(app, tenant, event.id, await contact(tenant)));
    expect(queue.map((q) => q.waitlist_position)).toEqual([1, 2, 3, 4]);

    // A waitlist cancellation in the middle closes the gap.
    expect((await cancel(tenant, event.id, queue[1]!.id)).statusCode).toBe(200);
    const positions = async () =>
      (await bookingsOf(ctx, event.id))
        .filter((b) => b.status === 'waitlist')
        .map((b) => [b.id, b.waitlist_position]);
    expect(await positions()).toEqual([
      [queue[0]!.id, 1],
      [queue[2]!.id, 2],
      [queue[3]!.id, 3],
    ]);

    // A confirmed cancellation moves position 1 up and renumbers the rest.
    const res = await cancel(tenant, event.id, confirmed[0]!.id);
    expect(res.json().promoted.map((p: BookingJson) => p.id)).toEqual([queue[0]!.id]);
    expect(await positions()).toEqual([
      [queue[2]!.id, 1],
      [queue[3]!.id, 2],
    ]);
    const detail = await getEvent(app, tenant, event.id);
    expect(detail).toMatchObject({ capacity_booked: 2, capacity_waitlist: 2, status: 'waitlist' });

    const notes = await ctx.db.query<{ type: string }>(
      `SELECT type FROM notifications WHERE tenant_id = $1 AND booking_id = $2`,
      [tenant.id, queue[0]!.id],
    );
    expect(notes.map((n) => n.type).sort()).toEqual(['booking.created', 'booking.promoted']);
  });

  it('resumes sale after a manual hold when a place is freed, moving the queue up first', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 3 }, 'selling');
    const first = await bookOk(app, tenant, event.id, await contact(tenant));
    await setStatus(app, tenant, event.id, 'waitlist');
    const held = await bookOk(app, tenant, event.id, await contact(tenant));
    expect(held).toMatchObject({ status: 'waitlist', waitlist_position: 1 });
    const resumed = await setStatus(app, tenant, event.id, 'selling');
    expect(resumed).toMatchObject({ status: 'selling', capacity_booked: 2, capacity_waitlist: 0 });
    expect((await bookingsOf(ctx, event.id)).map((b) => b.status)).toEqual(['confirmed', 'confirmed']);
    expect(first.status).toBe('confirmed');
  });

  it('lists the bookings of an event with their contact, filtered and paged', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 1 }, 'selling');
    const anna = await buildContact(ctx, tenant.id, { name: 'Anna', email: 'anna@example.test' });
    await bookOk(app, tenant, event.id, anna.id);
    await bookOk(app, tenant, event.id, await contact(tenant));
    await bookOk(app, tenant, event.id, await contact(tenant));
    const list = async (query = '') => {
      const res = await app.inject({
        method: 'GET',
        url: `/api/events/${event.id}/bookings${query}`,
        headers: tenant.owner.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{
        data: (BookingJson & { contact: { name: string } })[];
        next_cursor: string | null;
      }>();
    };
    const all = await list();
    expect(all.data.map((b) => b.status)).toEqual(['confirmed', 'waitlist', 'waitlist']);
    expect(all.data[0]!.contact).toEqual({
      id: anna.id,
      name: 'Anna',
      email: 'anna@example.test',
      phone: null,
    });
    expect((await list('?status=waitlist')).data).toHaveLength(2);
    const page = await list('?limit=2');
    expect(page.data).toHaveLength(2);
    const rest = await list(`?limit=2&cursor=${page.next_cursor}`);
    expect(rest.data).toHaveLength(1);
    expect(rest.next_cursor).toBeNull();
    const bad = await app.inject({
      method: 'GET',
      url: `/api/events/${event.id}/bookings?status=maybe`,
      headers: tenant.owner.headers,
    });
    expect(bad.statusCode).toBe(400);
  });

  it('guards every booking route: 401, 403 for viewers writing, 404 across tenants', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const event = await createEvent(app, tenant, {}, 'selling');
    const booking = await bookOk(app, tenant, event.id, await contact(tenant));
    const foreignEvent = await createEvent(app, other, {}, 'selling');
    const foreignBooking = await bookOk(app, other, foreignEvent.id, await contact(other));
    const viewer = await tenant.user('viewer');
    const routes = [
      { method: 'GET' as const, url: `/api/events/${event.id}/bookings` },
      {
        method: 'POST' as const,
        url: `/api/events/${event.id}/bookings`,
        payload: { contact_id: randomUUID() },
      },
      { method: 'DELETE' as const, url: `/api/events/${event.id}/bookings/${booking.id}` },
      {
        method: 'PATCH' as const,
        url: `/api/events/${event.id}/bookings/${booking.id}/status`,
        payload: { status: 'attended' },
      },
    ];
    for (const route of routes) {
      expect((await app.inject(route)).statusCode, `${route.method} ${route.url}`).toBe(401);
      const asViewer = await app.inject({ ...route, headers: viewer.headers });
      expect(asViewer.statusCode, `viewer ${route.method}`).toBe(route.method === 'GET' ? 200 : 403);
    }
    const h = tenant.owner.headers;
    const foreign = [
      { method: 'GET' as const, url: `/api/events/${foreignEvent.id}/bookings` },
      {
        method: 'POST' as const,
        url: `/api/events/${foreignEvent.id}/bookings`,
        payload: { contact_id: await contact(tenant) },
      },
      { method: 'DELETE' as const, url: `/api/events/${foreignEvent.id}/bookings/${foreignBooking.id}` },
      { method: 'DELETE' as const, url: `/api/events/${event.id}/bookings/${foreignBooking.id}` },
      { method: 'DELETE' as const, url: `/api/events/nope/bookings/also-nope` },
      {
        method: 'PATCH' as const,
        url: `/api/events/${foreignEvent.id}/bookings/${foreignBooking.id}/status`,
        payload: { status: 'cancelled' },
      },
    ];
    for (const route of foreign) {
      expect((await app.inject({ ...route, headers: h })).statusCode, `${route.method} ${route.url}`).toBe(
        404,
      );
    }
    expect((await bookingsOf(ctx, foreignEvent.id)).map((b) => b.status)).toEqual(['confirmed']);
  });
});
