import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { AppContext } from '../../src/shared/context.js';
import { insertContact, type ContactRow } from '../../src/modules/contacts/repository.js';
import type { TenantFixture } from '../helpers/factories.js';

export function buildContact(ctx: AppContext, tenantId: string, fields: Partial<ContactRow> = {}) {
  return insertContact(ctx.db, tenantId, { name: `Contact ${randomUUID().slice(0, 8)}`, ...fields });
}

/** Creates many contacts in one statement (race tests). */
export async function buildContacts(ctx: AppContext, tenantId: string, count: number): Promise<string[]> {
  const rows = await ctx.db.query<{ id: string }>(
    `INSERT INTO contacts (tenant_id, name) SELECT $1, 'Racer ' || n FROM generate_series(1, $2) n RETURNING id`,
    [tenantId, count],
  );
  return rows.map((r) => r.id);
}

export interface EventJson {
  id: string;
  status: string;
  capacity_total: number;
  capacity_booked: number;
  capacity_waitlist: number;
  provider_payment_link: string | null;
  [key: string]: unknown;
}

export interface BookingJson {
  id: string;
  status: string;
  waitlist_position: number | null;
  payment_status: string;
  payment_amount: number | null;
  payment_url: string | null;
  [key: string]: unknown;
}

/** Creates an event through the API (and moves it to `status` when given). */
export async function createEvent(
  app: FastifyInstance,
  tenant: TenantFixture,
  fields: Record<string, unknown> = {},
  status?: 'selling' | 'cancelled',
): Promise<EventJson> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/events',
    headers: tenant.owner.headers,
    payload: { title: 'Yoga am Morgen', event_date: '2030-06-01', capacity_total: 10, ...fields },
  });
  expect(res.statusCode, res.body).toBe(201);
  const event = res.json<EventJson>();
  if (!status) return event;
  return setStatus(app, tenant, event.id, status);
}

export async function setStatus(
  app: FastifyInstance,
  tenant: TenantFixture,
  eventId: string,
  status: string,
): Promise<EventJson> {
  const res = await app.inject({
    method: 'PATCH',
    url: `/api/events/${eventId}/status`,
    headers: tenant.owner.headers,
    payload: { status },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<EventJson>();
}

export function book(
  app: FastifyInstance,
  tenant: TenantFixture,
  eventId: string,
  contactId: string,
  extra = {},
) {
  return app.inject({
    method: 'POST',
    url: `/api/events/${eventId}/bookings`,
    headers: tenant.owner.headers,
    payload: { contact_id: contactId, ...extra },
  });
}

export async function bookOk(
  app: FastifyInstance,
  tenant: TenantFixture,
  eventId: string,
  contactId: string,
) {
  const res = await book(app, tenant, eventId, contactId);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<BookingJson>();
}

export async function getEvent(app: FastifyInstance, tenant: TenantFixture, eventId: string) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/events/${eventId}`,
    headers: tenant.owner.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<EventJson & { statistics: Record<string, number | null> }>();
}

/** Every booking of the event straight from the database, in booking order. */
export function bookingsOf(ctx: AppContext, eventId: string) {
  return ctx.db.query<{ id: string; contact_id: string; status: string; waitlist_position: number | null }>(
    'SELECT id, contact_id, status, waitlist_position FROM event_bookings WHERE event_id = $1 ORDER BY created_at, id',
    [eventId],
  );
}
