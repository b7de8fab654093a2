import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { book, buildContacts, createEvent, getEvent } from './fixtures.js';

describeApp('booking race', (get) => {
  it('settles 200 concurrent bookings for 50 places and 20 waitlist spots exactly', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 50, waitlist_max: 20 }, 'selling');
    const contacts = await buildContacts(ctx, tenant.id, 200);

    const responses = await Promise.all(contacts.map((id) => book(app, tenant, event.id, id)));

    const byStatus = (code: number) => responses.filter((r) => r.statusCode === code);
    expect(responses.filter((r) => ![201, 409].includes(r.statusCode))).toEqual([]);
    const created = byStatus(201).map((r) => r.json<{ status: string; waitlist_position: number | null }>());
    expect(created.filter((b) => b.status === 'confirmed')).toHaveLength(50);
    const queued = created.filter((b) => b.status === 'waitlist');
    expect(queued.map((b) => b.waitlist_position).sort((x, y) => x! - y!)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect(byStatus(409)).toHaveLength(130);
    expect(byStatus(409).every((r) => r.json().details?.reason === 'fully_booked')).toBe(true);

    const rows = await ctx.db.query<{ status: string; n: number; positions: number[] | null }>(
      `SELECT status, count(*)::int AS n, array_agg(waitlist_position ORDER BY waitlist_position)
         FILTER (WHERE waitlist_position IS NOT NULL) AS positions
       FROM event_bookings WHERE event_id = $1 GROUP BY status ORDER BY status`,
      [event.id],
    );
    expect(rows).toEqual([
      { status: 'confirmed', n: 50, positions: null },
      { status: 'waitlist', n: 20, positions: Array.from({ length: 20 }, (_, i) => i + 1) },
    ]);
    expect(await getEvent(app, tenant, event.id)).toMatchObject({
      capacity_booked: 50,
      capacity_waitlist: 20,
      status: 'waitlist',
    });
  });

  it('settles concurrent cancellations: each freed place goes to the next in line, once', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const event = await createEvent(app, tenant, { capacity_total: 10 }, 'selling');
    const contacts = await buildContacts(ctx, tenant.id, 20);
    const bookings = [];
    for (const id of contacts) bookings.push((await book(app, tenant, event.id, id)).json<{ id: string }>());
    const cancels = await Promise.all(
      bookings.slice(0, 5).map((b) =>
        app.inject({
          method: 'DELETE',
          url: `/api/events/${event.id}/bookings/${b.id}`,
          headers: tenant.owner.headers,
        }),
      ),
    );
    expect(cancels.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const promotedIds = cancels.flatMap((r) =>
      r.json<{ promoted: { id: string }[] }>().promoted.map((p) => p.id),
    );
    expect(promotedIds.sort()).toEqual(
      bookings
        .slice(10, 15)
        .map((b) => b.id)
        .sort(),
    );
    const queue = await ctx.db.query<{ waitlist_position: number }>(
      `SELECT waitlist_position FROM event_bookings WHERE event_id = $1 AND status = 'waitlist' ORDER BY 1`,
      [event.id],
    );
    expect(queue.map((q) => q.waitlist_position)).toEqual([1, 2, 3, 4, 5]);
    expect(await getEvent(app, tenant, event.id)).toMatchObject({
      capacity_booked: 10,
      capacity_waitlist: 5,
    });
  });
});
