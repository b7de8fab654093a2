import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { Page } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import {
  ContactBookingSchema,
  ContactDetailSchema,
  ContactLeadSchema,
  ContactListQuery,
  ContactSchema,
  ContactSubListQuery,
  CreateContactBody,
  MergeContactBody,
  PersonConversationSchema,
  PersonConversationsQuery,
  PersonErasureSchema,
  PersonExportSchema,
  ResolveContactBody,
  UpdateContactBody,
  createContact,
  editContact,
  getContact,
  listContactBookingsPage,
  listContactLeadsPage,
  listContactsPage,
  resolveContact,
  serializeContact,
} from '../contacts/index.js';
import {
  contactDetail,
  deleteContact,
  erasePerson,
  exportPerson,
  listPersonConversations,
  mergeContacts,
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
        operationId: 'listContacts',
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
        operationId: 'createContact',
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
        operationId: 'getContact',
        tags,
        summary:
          'A contact, with the latest bounce of a reply to its e-mail address (the warning on the contact)',
        security,
        params: IdParams,
        response: { 200: ContactDetailSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      contactDetail(ctx.db, await getContact(ctx.db, currentUser(request).tenantId, request.params.id)),
  );

  app.get(
    '/api/contacts/:id/bookings',
    {
      onRequest: requireUser(ctx, 'contact:view'),
      schema: {
        operationId: 'listContactBookings',
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
        operationId: 'listContactLeads',
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
        operationId: 'updateContact',
        tags,
        summary: 'Change contact fields (fields left out are kept, null clears)',
        security,
        params: IdParams,
        body: UpdateContactBody,
        response: { 200: ContactDetailSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      contactDetail(
        ctx.db,
        await editContact(ctx.db, currentUser(request).tenantId, request.params.id, request.body),
      ),
  );

  app.delete(
    '/api/contacts/:id',
    {
      onRequest: requireUser(ctx, 'contact:edit'),
      schema: {
        operationId: 'deleteContact',
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

  app.post(
    '/api/contacts/resolve',
    {
      onRequest: requireUser(ctx, 'contact:edit'),
      schema: {
        operationId: 'resolveContact',
        tags,
        summary:
          'The contact with this e-mail address or phone number: 200 when one exists, 201 when it was created',
        security,
        body: ResolveContactBody,
        response: { 200: ContactSchema, 201: ContactSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { contact, created } = await resolveContact(ctx.db, currentUser(request).tenantId, request.body);
      return reply.status(created ? 201 : 200).send(serializeContact(contact));
    },
  );

  app.post(
    '/api/contacts/:id/merge',
    {
      onRequest: requireUser(ctx, 'contact:edit'),
      schema: {
        operationId: 'mergeContacts',
        tags,
        summary:
          'Merge another contact into this one (bookings, leads and conversations move; the other is deleted)',
        security,
        params: IdParams,
        body: MergeContactBody,
        response: { 200: ContactSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      serializeContact(
        await mergeContacts(
          ctx.db,
          currentUser(request).tenantId,
          request.params.id,
          request.body.contact_id,
        ),
      ),
  );

  app.get(
    '/api/contacts/:id/conversations',
    {
      onRequest: requireUser(ctx, 'contact:view'),
      schema: {
        operationId: 'listPersonConversations',
        tags,
        summary: "The person's conversations on every channel, newest first",
        security,
        params: IdParams,
        querystring: PersonConversationsQuery,
        response: {
          200: Type.Object({ data: Type.Array(PersonConversationSchema) }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      listPersonConversations(
        ctx.db,
        currentUser(request).tenantId,
        request.params.id,
        request.query.limit ?? 50,
      ),
  );

  app.get(
    '/api/contacts/:id/export',
    {
      onRequest: requireUser(ctx, 'contact:edit'),
      schema: {
        operationId: 'exportPerson',
        tags,
        summary: 'Everything kept of the person (data-protection request): contact, bookings, conversations',
        security,
        params: IdParams,
        response: { 200: PersonExportSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const data = await exportPerson(ctx.db, currentUser(request).tenantId, request.params.id);
      return reply
        .header('content-disposition', `attachment; filename="contact-${data.contact.id}.json"`)
        .send(data);
    },
  );

  app.post(
    '/api/contacts/:id/erase',
    {
      onRequest: requireUser(ctx, 'contact:edit'),
      schema: {
        operationId: 'erasePerson',
        tags,
        summary:
          'Erase the person (data-protection request): open bookings are cancelled, then conversations, bookings and the contact deleted',
        security,
        params: IdParams,
        response: { 200: PersonErasureSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => erasePerson(ctx.db, currentUser(request).tenantId, request.params.id),
  );
};
