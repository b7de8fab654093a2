import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { bookOk, buildContact, createEvent, setStatus } from './fixtures.js';

const ALL_TYPES = ['event.status_changed', 'booking.created', 'booking.cancelled', 'booking.promoted'];

describeApp('event webhooks and notifications', (get) => {
  async function subscribe(tenant: TenantFixture) {
    await get().db.query(
      `INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret)
       VALUES ($1, 'https://hooks.example.test/parley', $2::text[], 'whsec_test')`,
      [tenant.id, ALL_TYPES],
    );
  }
  const outbox = (tenantId: string) =>
    get().db.query<{ type: string; data: Record<string, unknown> }>(
      'SELECT type, data FROM webhook_events WHERE tenant_id = $1 ORDER BY created_at, id',
      [tenantId],
    );

  it('emits status changes, bookings, cancellations and move-ups to the outbox in order', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    await subscribe(tenant);
    const event = await createEvent(app, tenant, { capacity_total: 1 }, 'selling');
    const first = await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    const second = await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    await app.inject({
      method: 'DELETE',
      url: `/api/events/${event.id}/bookings/${first.id}`,
      headers: tenant.owner.headers,
    });
    const events = await outbox(tenant.id);
    // Events of one transaction share its timestamp, so compare the set of types.
    expect(events.map((e) => e.type).sort()).toEqual(
      [
        'event.status_changed', // draft → selling
        'booking.created',
        'event.status_changed', // selling → waitlist (automatic)
        'booking.created',
        'booking.cancelled',
        // The freed place went to the waitlist at once: the event stays 'waitlist', no status signal.
        'booking.promoted',
      ].sort(),
    );
    const find = (type: string, match: (data: Record<string, unknown>) => boolean) =>
      events.find((e) => e.type === type && match(e.data))?.data;
    const statusChange = (from: string, to: string) =>
      find('event.status_changed', (d) => d.from === from && d.to === to);
    expect(statusChange('draft', 'selling')).toMatchObject({ automatic: false });
    expect(statusChange('selling', 'waitlist')).toMatchObject({ automatic: true });
    expect(statusChange('waitlist', 'selling')).toBeUndefined();
    expect(find('booking.promoted', () => true)).toMatchObject({
      booking: { id: second.id, status: 'confirmed' },
    });
    expect(find('booking.cancelled', () => true)).toMatchObject({
      booking: { id: first.id, status: 'cancelled' },
      reason: 'cancelled',
    });
  });
  it('cancelling the only confirmed booking of a full event with a waitlist emits no status change', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    await subscribe(tenant);
    const event = await createEvent(app, tenant, { capacity_total: 1 }, 'selling');
    const first = await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    const waiting = await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    expect(waiting.status).toBe('waitlist');
    const before = (await outbox(tenant.id)).length;
    const notificationsBefore = await get().db.query(
      `SELECT 1 FROM notifications WHERE tenant_id = $1 AND type = 'event.status_changed'`,
      [tenant.id],
    );
    const res = await app.inject({
      method: 'DELETE',
      url: `/api/events/${event.id}/bookings/${first.id}`,
      headers: tenant.owner.headers,
    });
    expect(res.statusCode).toBe(200);
    const after = (await outbox(tenant.id)).slice(before);
    expect(after.map((e) => e.type).sort()).toEqual(['booking.cancelled', 'booking.promoted']);
    expect(after.find((e) => e.type === 'booking.promoted')?.data).toMatchObject({
      event: { status: 'waitlist' },
      booking: { id: waiting.id, status: 'confirmed' },
    });
    const notificationsAfter = await get().db.query(
      `SELECT 1 FROM notifications WHERE tenant_id = $1 AND type = 'event.status_changed'`,
      [tenant.id],
    );
    expect(notificationsAfter).toHaveLength(notificationsBefore.length);
    const detail = await app.inject({
      method: 'GET',
      url: `/api/events/${event.id}`,
      headers: tenant.owner.headers,
    });
    expect(detail.json()).toMatchObject({ status: 'waitlist', capacity_booked: 1, capacity_waitlist: 0 });
  });

  it('a freed place with nobody waiting switches waitlist → selling once', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    await subscribe(tenant);
    const event = await createEvent(app, tenant, { capacity_total: 1 }, 'selling');
    const only = await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    const before = (await outbox(tenant.id)).length;
    await app.inject({
      method: 'DELETE',
      url: `/api/events/${event.id}/bookings/${only.id}`,
      headers: tenant.owner.headers,
    });
    const after = (await outbox(tenant.id)).slice(before);
    expect(after.map((e) => [e.type, e.data.from, e.data.to])).toEqual(
      expect.arrayContaining([['event.status_changed', 'waitlist', 'selling']]),
    );
    expect(after.filter((e) => e.type === 'event.status_changed')).toHaveLength(1);
  });

  it('writes nothing to the outbox when a request is refused', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    await subscribe(tenant);
    const event = await createEvent(app, tenant, { capacity_total: 0, waitlist_max: 0 }, 'selling');
    const before = (await outbox(tenant.id)).length;
    const res = await app.inject({
      method: 'POST',
      url: `/api/events/${event.id}/bookings`,
      headers: tenant.owner.headers,
      payload: { contact_id: (await buildContact(ctx, tenant.id)).id },
    });
    expect(res.statusCode).toBe(409);
    expect(await outbox(tenant.id)).toHaveLength(before);
  });

  it('lists notifications newest first, filters unread and marks them read', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 3 }, 'selling');
    await bookOk(app, tenant, event.id, (await buildContact(ctx, tenant.id)).id);
    await setStatus(app, tenant, event.id, 'completed');
    const list = async (query = '', headers = tenant.owner.headers) =>
      app.inject({ method: 'GET', url: `/api/notifications${query}`, headers });
    const all = (await list()).json<{ data: { id: string; type: string; read_at: string | null }[] }>();
    expect(all.data.map((n) => n.type)).toEqual([
      'event.status_changed',
      'booking.created',
      'event.status_changed',
    ]);
    const read = await app.inject({
      method: 'POST',
      url: `/api/notifications/${all.data[0]!.id}/read`,
      headers: tenant.owner.headers,
    });
    expect(read.statusCode).toBe(200);
    expect(read.json().read_at).toEqual(expect.any(String));
    expect((await list('?unread=true')).json().data).toHaveLength(2);
    expect((await list(`?event_id=${event.id}&limit=1`)).json().next_cursor).toEqual(expect.any(String));

    const viewer = await tenant.user('viewer');
    expect((await list('', viewer.headers)).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/notifications' })).statusCode).toBe(401);
    const other = await buildTenant(ctx);
    expect((await list('', other.owner.headers)).json().data).toEqual([]);
    const foreign = await app.inject({
      method: 'POST',
      url: `/api/notifications/${all.data[1]!.id}/read`,
      headers: other.owner.headers,
    });
    expect(foreign.statusCode).toBe(404);
    const malformed = await app.inject({
      method: 'POST',
      url: '/api/notifications/x/read',
      headers: tenant.owner.headers,
    });
    expect(malformed.statusCode).toBe(404);
  });
});
