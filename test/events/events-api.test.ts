import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { EVENT_STATUSES, type EventStatus } from '../../src/modules/events/event-status.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { bookOk, buildContact, createEvent, getEvent, setStatus, type EventJson } from './fixtures.js';

describeApp('events API', (get) => {
  const post = (tenant: TenantFixture, payload: Record<string, unknown>) =>
    get().app.inject({ method: 'POST', url: '/api/events', headers: tenant.owner.headers, payload });

  /** An event brought into `status` through the API. */
  async function eventIn(tenant: TenantFixture, status: EventStatus, fields = {}): Promise<EventJson> {
    const { app } = get();
    const event = await createEvent(app, tenant, fields);
    if (status === 'draft') return event;
    if (status === 'cancelled') return setStatus(app, tenant, event.id, 'cancelled');
    await setStatus(app, tenant, event.id, 'selling');
    if (status === 'waitlist') return setStatus(app, tenant, event.id, 'waitlist');
    if (status === 'completed') return setStatus(app, tenant, event.id, 'completed');
    return getEvent(app, tenant, event.id);
  }

  it('creates an event with the specification defaults', async () => {
    const tenant = await buildTenant(get().ctx);
    const res = await post(tenant, { title: 'Kochkurs', event_date: '2030-03-01', capacity_total: 12 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      title: 'Kochkurs',
      event_date: '2030-03-01',
      capacity_total: 12,
      capacity_booked: 0,
      capacity_waitlist: 0,
      waitlist_max: null,
      price: 0,
      currency: 'EUR',
      payment_model: 'free',
      status: 'draft',
      metadata: {},
      created_by: tenant.owner.id,
      provider_payment_link: null,
    });
  });

  it('stores every optional field, normalising the currency', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const res = await post(tenant, {
      title: 'Workshop',
      description: 'Ganztägig',
      location: 'Berlin',
      image_url: 'https://img.example/w.png',
      event_date: '2030-04-02',
      event_time_start: '09:30',
      event_time_end: '17:00:00',
      booking_deadline: '2030-04-01T12:00:00Z',
      capacity_total: 20,
      waitlist_max: 5,
      price: 149.9,
      currency: 'chf',
      payment_model: 'deposit',
      deposit_amount: 50,
      bot_id: bot.id,
      metadata: { room: 'A' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      event_time_start: '09:30:00',
      event_time_end: '17:00:00',
      booking_deadline: '2030-04-01T12:00:00.000Z',
      price: 149.9,
      currency: 'CHF',
      deposit_amount: 50,
      bot_id: bot.id,
      metadata: { room: 'A' },
    });
  });

  it.each([
    [{ title: undefined }, "'title' is required"],
    [{ title: 'x'.repeat(201) }, 'body.title'],
    [{ title: '   ' }, 'body.title'],
    [{ event_date: '2030-13-01' }, 'body.event_date'],
    [{ capacity_total: undefined }, "'capacity_total' is required"],
    [{ capacity_total: -1 }, 'body.capacity_total'],
    [{ capacity_total: 2.5 }, 'body.capacity_total'],
    [{ capacity_total: '5' }, 'body.capacity_total'],
    [{ currency: 'EURO' }, 'body.currency'],
    [{ currency: 'E1R' }, 'body.currency'],
    [{ price: -5 }, 'body.price'],
    [{ price: 10.123 }, "'price' must have at most 2 decimal places"],
    [{ waitlist_max: -1 }, 'body.waitlist_max'],
    [{ location: 'x'.repeat(501) }, 'body.location'],
    [{ image_url: `https://x.example/${'a'.repeat(1000)}` }, 'body.image_url'],
    [{ image_url: 'ftp://x.example/a.png' }, 'body.image_url'],
    [{ event_time_start: '25:00' }, 'body.event_time_start'],
    [{ event_time_start: '10:00', event_time_end: '09:00' }, "'event_time_end' must be after"],
    [{ payment_model: 'barter' }, 'body.payment_model'],
    [{ payment_model: 'deposit', price: 50 }, "'deposit_amount' is required"],
    [{ payment_model: 'deposit', price: 50, deposit_amount: 60 }, "'deposit_amount' must not exceed 'price'"],
    [{ payment_model: 'full_payment', price: 0 }, "'price' must be greater than 0"],
    [{ payment_model: 'external_link' }, "'external_payment_url' is required"],
    [{ booking_deadline: 'tomorrow' }, 'body.booking_deadline'],
    [{ bot_id: 'not-a-uuid' }, 'body.bot_id'],
    [{ bot_id: randomUUID() }, "'bot_id' does not name a bot"],
    [{ status: 'selling' }, "Unknown field 'status'"],
    [{ capacity_booked: 3 }, "Unknown field 'capacity_booked'"],
  ])('refuses %o with 400 naming the field', async (change, message) => {
    const tenant = await buildTenant(get().ctx);
    const payload: Record<string, unknown> = {
      title: 'T',
      event_date: '2030-01-01',
      capacity_total: 5,
      ...change,
    };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete payload[k];
    const res = await post(tenant, payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'validation_error',
      message: expect.stringContaining(message),
    });
    const count = await get().db.query('SELECT 1 FROM events WHERE tenant_id = $1', [tenant.id]);
    expect(count).toHaveLength(0);
  });

  it("refuses another tenant's bot as bot_id", async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const foreignBot = await other.bot();
    const res = await post(tenant, {
      title: 'T',
      event_date: '2030-01-01',
      capacity_total: 1,
      bot_id: foreignBot.id,
    });
    expect(res.statusCode).toBe(400);
  });

  it('requires a session, event:edit to write and event:view to read', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant);
    const viewer = await tenant.user('viewer');
    const payload = { title: 'T', event_date: '2030-01-01', capacity_total: 1 };
    expect((await app.inject({ method: 'POST', url: '/api/events', payload })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/events' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: `/api/events/${event.id}` })).statusCode).toBe(401);
    const asViewer = (method: 'POST' | 'PUT' | 'DELETE' | 'PATCH', url: string, body?: object) =>
      app.inject({ method, url, headers: viewer.headers, ...(body ? { payload: body } : {}) });
    expect((await asViewer('POST', '/api/events', payload)).statusCode).toBe(403);
    expect((await asViewer('PUT', `/api/events/${event.id}`, { title: 'X' })).statusCode).toBe(403);
    expect((await asViewer('DELETE', `/api/events/${event.id}`)).statusCode).toBe(403);
    expect(
      (await asViewer('PATCH', `/api/events/${event.id}/status`, { status: 'selling' })).statusCode,
    ).toBe(403);
    const read = await app.inject({ method: 'GET', url: `/api/events/${event.id}`, headers: viewer.headers });
    expect(read.statusCode).toBe(200);
  });

  it("answers 404 for another tenant's event and for malformed ids on every event route", async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const foreign = await createEvent(app, other);
    for (const id of [foreign.id, 'nope', randomUUID()]) {
      const h = tenant.owner.headers;
      expect((await app.inject({ method: 'GET', url: `/api/events/${id}`, headers: h })).statusCode).toBe(
        404,
      );
      const put = await app.inject({
        method: 'PUT',
        url: `/api/events/${id}`,
        headers: h,
        payload: { title: 'x' },
      });
      expect(put.statusCode).toBe(404);
      expect((await app.inject({ method: 'DELETE', url: `/api/events/${id}`, headers: h })).statusCode).toBe(
        404,
      );
      const patch = await app.inject({
        method: 'PATCH',
        url: `/api/events/${id}/status`,
        headers: h,
        payload: { status: 'cancelled' },
      });
      expect(patch.statusCode).toBe(404);
    }
    expect((await getEvent(app, other, foreign.id)).title).toBe('Yoga am Morgen');
  });

  it('lists with filters status, from_date, to_date and bot_id, sorted by start, with cursor pages', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const late = await createEvent(app, tenant, { title: 'late', event_date: '2030-09-01' });
    const early = await createEvent(app, tenant, {
      title: 'early',
      event_date: '2030-01-01',
      event_time_start: '18:00',
    });
    const earlier = await createEvent(app, tenant, {
      title: 'earlier',
      event_date: '2030-01-01',
      event_time_start: '08:00',
    });
    const mid = await createEvent(
      app,
      tenant,
      { title: 'mid', event_date: '2030-05-01', bot_id: bot.id },
      'selling',
    );
    await createEvent(await Promise.resolve(app), await buildTenant(ctx), { title: 'foreign' });
    const list = async (query: string) => {
      const res = await app.inject({
        method: 'GET',
        url: `/api/events?${query}`,
        headers: tenant.owner.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ data: EventJson[]; next_cursor: string | null }>();
    };
    const titles = (page: { data: EventJson[] }) => page.data.map((e) => e.title);
    expect(titles(await list(''))).toEqual(['earlier', 'early', 'mid', 'late']);
    expect(titles(await list('sort=-event_date'))).toEqual(['late', 'mid', 'early', 'earlier']);
    expect(titles(await list('status=selling'))).toEqual(['mid']);
    expect(titles(await list('status=draft&from_date=2030-02-01'))).toEqual(['late']);
    expect(titles(await list('to_date=2030-05-01'))).toEqual(['earlier', 'early', 'mid']);
    expect(titles(await list(`bot_id=${bot.id}`))).toEqual(['mid']);

    const first = await list('limit=3');
    expect(titles(first)).toEqual(['earlier', 'early', 'mid']);
    const second = await list(`limit=3&cursor=${first.next_cursor}`);
    expect(titles(second)).toEqual(['late']);
    expect(second.next_cursor).toBeNull();
    expect([late, early, earlier, mid].every((e) => e.id)).toBe(true);

    for (const bad of [
      'status=open',
      'from_date=01.01.2030',
      'bot_id=x',
      'limit=0',
      'sort=title',
      'cursor=zzz',
    ]) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/events?${bad}`,
        headers: tenant.owner.headers,
      });
      expect(res.statusCode, bad).toBe(400);
    }
    const reversed = await app.inject({
      method: 'GET',
      url: '/api/events?from_date=2030-05-01&to_date=2030-01-01',
      headers: tenant.owner.headers,
    });
    expect(reversed.statusCode).toBe(400);
  });

  it('updates given fields, clears with null and keeps the rest', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { location: 'Raum 1', description: 'alt' });
    const res = await app.inject({
      method: 'PUT',
      url: `/api/events/${event.id}`,
      headers: tenant.owner.headers,
      payload: { title: 'Neu', location: null, price: 12.5 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ title: 'Neu', location: null, description: 'alt', price: 12.5 });
    const bad = await app.inject({
      method: 'PUT',
      url: `/api/events/${event.id}`,
      headers: tenant.owner.headers,
      payload: { payment_model: 'deposit' },
    });
    expect(bad.statusCode).toBe(400);
    expect((await getEvent(app, tenant, event.id)).payment_model).toBe('free');
  });

  it('fixes payment terms after draft and refuses edits of final events', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const selling = await eventIn(tenant, 'selling', { price: 0 });
    const put = (id: string, payload: object) =>
      app.inject({ method: 'PUT', url: `/api/events/${id}`, headers: tenant.owner.headers, payload });
    const locked = await put(selling.id, { price: 10 });
    expect(locked.statusCode).toBe(409);
    expect(locked.json().message).toContain('price');
    expect((await put(selling.id, { price: 0, title: 'Gleicher Preis' })).statusCode).toBe(200);
    for (const status of ['completed', 'cancelled'] as const) {
      const final = await eventIn(tenant, status);
      const res = await put(final.id, { title: 'x' });
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toContain(`'${status}'`);
    }
  });

  it('refuses a capacity below the booked places and a waitlist_max below the waitlist', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await eventIn(tenant, 'selling', { capacity_total: 2 });
    for (let i = 0; i < 3; i += 1)
      await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    const put = (payload: object) =>
      app.inject({ method: 'PUT', url: `/api/events/${event.id}`, headers: tenant.owner.headers, payload });
    expect((await put({ capacity_total: 1 })).statusCode).toBe(409);
    expect((await put({ waitlist_max: 0 })).statusCode).toBe(409);
    expect((await put({ waitlist_max: 1 })).statusCode).toBe(200);
  });

  it('moves the waitlist up and resumes selling when the capacity grows', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await eventIn(tenant, 'selling', { capacity_total: 1 });
    const bookings = [];
    for (let i = 0; i < 4; i += 1) {
      bookings.push(await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id));
    }
    expect((await getEvent(app, tenant, event.id)).status).toBe('waitlist');
    const res = await app.inject({
      method: 'PUT',
      url: `/api/events/${event.id}`,
      headers: tenant.owner.headers,
      payload: { capacity_total: 3 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'waitlist', capacity_booked: 3, capacity_waitlist: 1 });
    const grown = await app.inject({
      method: 'PUT',
      url: `/api/events/${event.id}`,
      headers: tenant.owner.headers,
      payload: { capacity_total: 5 },
    });
    expect(grown.json()).toMatchObject({ status: 'selling', capacity_booked: 4, capacity_waitlist: 0 });
  });

  it('changes the status along every allowed transition of the table', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const allowed: [EventStatus, EventStatus][] = [
      ['draft', 'selling'],
      ['draft', 'cancelled'],
      ['selling', 'waitlist'],
      ['selling', 'completed'],
      ['selling', 'cancelled'],
      ['waitlist', 'selling'],
      ['waitlist', 'completed'],
      ['waitlist', 'cancelled'],
    ];
    for (const [from, to] of allowed) {
      const event = await eventIn(tenant, from);
      expect(event.status).toBe(from);
      const changed = await setStatus(app, tenant, event.id, to);
      expect(changed.status, `${from} → ${to}`).toBe(to);
    }
    const notes = await ctx.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notifications WHERE tenant_id = $1 AND type = 'event.status_changed'`,
      [tenant.id],
    );
    expect(notes[0]!.n).toBeGreaterThanOrEqual(allowed.length);
  });

  it('refuses every other transition with 409 naming the current and the requested status', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const allowed = new Set([
      'draft>selling',
      'draft>cancelled',
      'selling>waitlist',
      'selling>completed',
      'selling>cancelled',
      'waitlist>selling',
      'waitlist>completed',
      'waitlist>cancelled',
    ]);
    for (const from of EVENT_STATUSES) {
      const event = await eventIn(tenant, from);
      for (const to of EVENT_STATUSES) {
        if (allowed.has(`${from}>${to}`)) continue;
        const res = await app.inject({
          method: 'PATCH',
          url: `/api/events/${event.id}/status`,
          headers: tenant.owner.headers,
          payload: { status: to },
        });
        expect(res.statusCode, `${from} → ${to}`).toBe(409);
        const body = res.json();
        expect(body.error).toBe('conflict');
        expect(body.message).toContain(`'${from}'`);
        expect(body.message).toContain(`'${to}'`);
        expect(body.details).toEqual({ current_status: from, requested_status: to });
      }
      expect((await getEvent(app, tenant, event.id)).status).toBe(from);
    }
    const invalid = await app.inject({
      method: 'PATCH',
      url: `/api/events/${(await eventIn(tenant, 'draft')).id}/status`,
      headers: tenant.owner.headers,
      payload: { status: 'open' },
    });
    expect(invalid.statusCode).toBe(400);
  });

  it('switches selling → waitlist when the last place is booked, and back when a place is freed', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await eventIn(tenant, 'selling', { capacity_total: 1 });
    const booking = await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    expect((await getEvent(app, tenant, event.id)).status).toBe('waitlist');
    const cancel = await app.inject({
      method: 'DELETE',
      url: `/api/events/${event.id}/bookings/${booking.id}`,
      headers: tenant.owner.headers,
    });
    expect(cancel.statusCode).toBe(200);
    expect((await getEvent(app, tenant, event.id)).status).toBe('selling');
    const draftToSelling = await eventIn(tenant, 'selling', { capacity_total: 0 });
    expect(draftToSelling.status).toBe('waitlist');
  });

  it('deletes only draft and cancelled events, with their bookings', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const del = (id: string) =>
      app.inject({ method: 'DELETE', url: `/api/events/${id}`, headers: tenant.owner.headers });
    for (const status of ['selling', 'waitlist', 'completed'] as const) {
      const event = await eventIn(tenant, status);
      const res = await del(event.id);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        error: 'conflict',
        message: `Event im Status '${status}' kann nicht gelöscht werden`,
      });
      expect((await getEvent(app, tenant, event.id)).status).toBe(status);
    }
    const draft = await eventIn(tenant, 'draft');
    expect((await del(draft.id)).statusCode).toBe(204);
    expect(
      (await app.inject({ method: 'GET', url: `/api/events/${draft.id}`, headers: tenant.owner.headers }))
        .statusCode,
    ).toBe(404);

    const sold = await eventIn(tenant, 'selling', { capacity_total: 3 });
    await bookOk(app, tenant, sold.id, (await buildContact(ctx, tenant.id)).id);
    await setStatus(app, tenant, sold.id, 'cancelled');
    expect((await del(sold.id)).statusCode).toBe(204);
    const left = await ctx.db.query('SELECT 1 FROM event_bookings WHERE event_id = $1', [sold.id]);
    expect(left).toHaveLength(0);
  });

  it('cancels the open bookings of a cancelled event', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await eventIn(tenant, 'selling', { capacity_total: 1 });
    await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    const cancelled = await setStatus(app, tenant, event.id, 'cancelled');
    expect(cancelled).toMatchObject({ status: 'cancelled', capacity_booked: 0, capacity_waitlist: 0 });
    const rows = await ctx.db.query<{ status: string }>(
      'SELECT status FROM event_bookings WHERE event_id = $1',
      [event.id],
    );
    expect(rows.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('reports live statistics in the detail', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await eventIn(tenant, 'selling', { capacity_total: 4 });
    const ids = [];
    for (let i = 0; i < 4; i += 1)
      ids.push((await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id)).id);
    const patch = (id: string, status: string) =>
      app.inject({
        method: 'PATCH',
        url: `/api/events/${event.id}/bookings/${id}/status`,
        headers: tenant.owner.headers,
        payload: { status },
      });
    expect((await patch(ids[0]!, 'attended')).statusCode).toBe(200);
    expect((await patch(ids[1]!, 'no_show')).statusCode).toBe(200);
    expect((await patch(ids[2]!, 'cancelled')).statusCode).toBe(200);
    await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    const detail = await getEvent(app, tenant, event.id);
    expect(detail.statistics).toEqual({
      confirmed: 2,
      waitlist: 1,
      cancelled: 1,
      attended: 1,
      no_show: 1,
      free_places: 0,
      utilization: 1,
      waitlist_room: null,
      amount_paid: 0,
      amount_pending: 0,
      amount_refunded: 0,
    });
    expect(detail).toMatchObject({ capacity_booked: 4, capacity_waitlist: 1, status: 'waitlist' });
  });
});
