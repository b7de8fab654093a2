import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { Page } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { changeBookingStatus, createBooking, listBookingsPage } from './bookings/service.js';
import { createPaymentProvider } from './payments.js';
import {
  BookingChangeResponse,
  BookingIdParams,
  BookingListQuery,
  BookingSchema,
  BookingStatusBody,
  BookingWithContactSchema,
  CreateBookingBody,
  CreateEventBody,
  EventDetailSchema,
  EventListQuery,
  EventSchema,
  EventStatusBody,
  UpdateEventBody,
} from './schema.js';
import {
  changeEventStatus,
  createEvent,
  deleteEvent,
  getEventDetail,
  listEventsPage,
  updateEvent,
  type EventDeps,
} from './service.js';
import { stripeWebhookRoutes } from './webhook-routes.js';

/** Dashboard events and bookings (event:view to read, event:edit to write) and the Stripe webhook. */
export const eventRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: events'];
  const security = SESSION_SECURITY;
  const payments = createPaymentProvider(ctx.config.payments);
  const deps = (log: EventDeps['log']): EventDeps => ({ db: ctx.db, payments, log });
  const tenant = (request: Parameters<typeof currentUser>[0]) => currentUser(request).tenantId;

  await app.register(stripeWebhookRoutes, { ctx });

  app.get(
    '/api/events',
    {
      onRequest: requireUser(ctx, 'event:view'),
      schema: {
        operationId: 'listEvents',
        tags,
        summary: 'List events by start date (filters status, from_date, to_date, bot_id; cursor pagination)',
        security,
        querystring: EventListQuery,
        response: { 200: Page(EventSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listEventsPage(deps(request.log), tenant(request), request.query),
  );

  app.post(
    '/api/events',
    {
      onRequest: requireUser(ctx, 'event:edit'),
      schema: {
        operationId: 'createEvent',
        tags,
        summary: 'Create an event (status draft)',
        security,
        body: CreateEventBody,
        response: { 201: EventSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      return reply
        .status(201)
        .send(await createEvent(deps(request.log), user.tenantId, user.id, request.body));
    },
  );

  app.get(
    '/api/events/:id',
    {
      onRequest: requireUser(ctx, 'event:view'),
      schema: {
        operationId: 'getEvent',
        tags,
        summary: 'An event with live statistics (bookings by status, free places, utilisation, amounts)',
        security,
        params: IdParams,
        response: { 200: EventDetailSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => getEventDetail(deps(request.log), tenant(request), request.params.id),
  );

  app.put(
    '/api/events/:id',
    {
      onRequest: requireUser(ctx, 'event:edit'),
      schema: {
        operationId: 'updateEvent',
        tags,
        summary:
          'Change event fields (left out: kept, null: cleared); 409 for final events and locked payment terms',
        security,
        params: IdParams,
        body: UpdateEventBody,
        response: { 200: EventSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => updateEvent(deps(request.log), tenant(request), request.params.id, request.body),
  );

  app.delete(
    '/api/events/:id',
    {
      onRequest: requireUser(ctx, 'event:edit'),
      schema: {
        operationId: 'deleteEvent',
        tags,
        summary: 'Delete an event with its bookings; only in status draft or cancelled, else 409',
        security,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteEvent(deps(request.log), tenant(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.patch(
    '/api/events/:id/status',
    {
      onRequest: requireUser(ctx, 'event:edit'),
      schema: {
        operationId: 'changeEventStatus',
        tags,
        summary:
          'Change the event status by the state machine (409 names current and requested status); ' +
          'selling with a paid model creates the payment link (503 when the provider fails)',
        security,
        params: IdParams,
        body: EventStatusBody,
        response: { 200: EventSchema, ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request) =>
      changeEventStatus(deps(request.log), tenant(request), request.params.id, request.body.status),
  );

  app.get(
    '/api/events/:id/bookings',
    {
      onRequest: requireUser(ctx, 'event:view'),
      schema: {
        operationId: 'listBookings',
        tags,
        summary: 'Bookings of an event in booking order, with contact (filter status; cursor pagination)',
        security,
        params: IdParams,
        querystring: BookingListQuery,
        response: { 200: Page(BookingWithContactSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listBookingsPage(ctx.db, tenant(request), request.params.id, request.query),
  );

  app.post(
    '/api/events/:id/bookings',
    {
      onRequest: requireUser(ctx, 'event:edit'),
      schema: {
        operationId: 'createBooking',
        tags,
        summary:
          'Book a contact: confirmed while places are free, else on the waitlist while it has room; ' +
          '409 when refused (not in sale, deadline passed, already booked, fully booked)',
        security,
        params: IdParams,
        body: CreateBookingBody,
        response: { 201: BookingSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { contact_id, channel, metadata } = request.body;
      const booking = await createBooking(ctx.db, tenant(request), {
        eventId: request.params.id,
        contactId: contact_id,
        channel: channel ?? 'manual',
        metadata,
      });
      return reply.status(201).send(booking);
    },
  );

  app.delete(
    '/api/events/:eventId/bookings/:bookingId',
    {
      onRequest: requireUser(ctx, 'event:edit'),
      schema: {
        operationId: 'cancelBooking',
        tags,
        summary: 'Cancel a booking; the first waitlist booking moves up into a freed place',
        security,
        params: BookingIdParams,
        response: { 200: BookingChangeResponse, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) =>
      changeBookingStatus(ctx.db, tenant(request), {
        eventId: request.params.eventId,
        bookingId: request.params.bookingId,
        status: 'cancelled',
      }),
  );

  app.patch(
    '/api/events/:eventId/bookings/:bookingId/status',
    {
      onRequest: requireUser(ctx, 'event:edit'),
      schema: {
        operationId: 'changeBookingStatus',
        tags,
        summary:
          'Change a booking status by the state machine (attended, no_show, cancelled); 409 when not allowed',
        security,
        params: BookingIdParams,
        body: BookingStatusBody,
        response: { 200: BookingChangeResponse, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      changeBookingStatus(ctx.db, tenant(request), {
        eventId: request.params.eventId,
        bookingId: request.params.bookingId,
        status: request.body.status,
        reason: request.body.reason,
      }),
  );
};
