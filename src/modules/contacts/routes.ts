import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { currentUser, requireUser } from '../auth/guard.js';
import { Page } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import {
  ContactBookingSchema,
  ContactLeadSchema,
  ContactListQuery,
  ContactSchema,
  ContactSubListQuery,
  CreateContactBody,
  UpdateContactBody,
} from './schema.js';
import {
  createContact,
  deleteContact,
  editContact,
  getContact,
  listContactBookingsPage,
  listContactLeadsPage,
  listContactsPage,
  serializeContact,
} from './service.js';

/** Dashboard contact management: contact:view to read, contact:edit to write. */
export const contactRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: contacts'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/contacts',
    {
      onRequest: requireUser(ctx, 'contact:view'),
      schema: {
        tags,
        summary: "List the tenant's contacts, newest first (cursor pagination, search q)",
        security,
        querystring: ContactListQuery,
        response: { 200: Page(ContactSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listContactsPage(ctx.db, currentUser(request).tenantId, request.query),
  );

  app.post(
    '/api/contacts',
    {
      onRequest: requireUser(ctx, 'contact:edit'),
      schema: {
        tags,
        summary: 'Create a contact',
        security,
        body: CreateContactBody,
        response: { 201: ContactSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const contact = await createContact(ctx.db, currentUser(request).tenantId, request.body);
      return reply.status(201).send(serializeContact(contact));
    },
  );

  app.get(
    '/api/contacts/:id',
    {
      onRequest: requireUser(ctx, 'contact:view'),
      schema: {
        tags,
        summary: 'A contact',
        security,
        params: IdParams,
        response: { 200: ContactSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      serializeContact(await getContact(ctx.db, currentUser(request).tenantId, request.params.id)),
  );

  app.get(
    '/api/contacts/:id/bookings',
    {
      onRequest: requireUser(ctx, 'contact:view'),
      schema: {
        tags,
        summary: "The contact's event bookings with their events, newest first (cursor pagination)",
        security,
        params: IdParams,
        querystring: ContactSubListQuery,
        response: { 200: Page(ContactBookingSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      listContactBookingsPage(ctx.db, currentUser(request).tenantId, request.params.id, request.query),
  );

  app.get(
    '/api/contacts/:id/leads',
    {
      onRequest: requireUser(ctx, 'contact:view'),
      schema: {
        tags,
        summary: 'Conversations linked to the contact by a recorded lead, newest first (cursor pagination)',
        security,
        params: IdParams,
        querystring: ContactSubListQuery,
        response: { 200: Page(ContactLeadSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      listContactLeadsPage(ctx.db, currentUser(request).tenantId, request.params.id, request.query),
  );

  app.put(
    '/api/contacts/:id',
    {
      onRequest: requireUser(ctx, 'contact:edit'),
      schema: {
        tags,
        summary: 'Change contact fields (fields left out are kept, null clears)',
        security,
        params: IdParams,
        body: UpdateContactBody,
        response: { 200: ContactSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      serializeContact(
        await editContact(ctx.db, currentUser(request).tenantId, request.params.id, request.body),
      ),
  );

  app.delete(
    '/api/contacts/:id',
    {
      onRequest: requireUser(ctx, 'contact:edit'),
      schema: {
        tags,
        summary:
          'Delete a contact with its past bookings; refused with 409 while it has confirmed or waitlist bookings',
        security,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteContact(ctx.db, currentUser(request).tenantId, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
