import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { badRequest, notFound } from '../../http/errors.js';
import { SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { describeOnboarding, ONBOARDING_STEP_KEYS, type OnboardingStepKey } from './onboarding.js';
import {
  findOnboarding,
  setOnboardingStep,
  type EntryRow,
  type EntryScope,
  type EntrySummaryRow,
} from './repository.js';
import {
  BotEntryParams,
  BotParams,
  EntryBody,
  EntryParams,
  EntrySchema,
  ImportBody,
  ImportQuery,
  ImportResponse,
  ListQuery,
  ListResponse,
  OnboardingResponse,
  OnboardingStepBody,
  OnboardingStepParams,
  SearchQuery,
  SearchResponse,
} from './schema.js';
import * as service from './service.js';
import type { EntryInput, KnowledgeDeps } from './service.js';

interface ScopeRoutes {
  prefix: string;
  params: TObject;
  entryParams: TObject;
  tags: string[];
  what: string;
  /** The scope's operationId for the tenant-wide one (the bot's names the bot). */
  operationId: (tenantWide: string) => string;
  resolve(request: FastifyRequest): Promise<EntryScope>;
}

/** Knowledge entries of a bot and of the tenant, the hit test, and the onboarding checklist. */
export const knowledgeRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const deps: KnowledgeDeps = {
    db: ctx.db,
    embeddings: ctx.embeddings,
    maxEntryBytes: ctx.config.knowledge.maxEntryBytes,
    minScore: ctx.config.knowledge.minScore,
  };
  // Raw file imports; this parser applies to this plugin's routes only.
  app.addContentTypeParser(['text/markdown', 'text/x-markdown'], { parseAs: 'string' }, (_req, body, done) =>
    done(null, body),
  );

  const tenantOf = (request: FastifyRequest) => currentUser(request).tenantId;
  const paramsOf = (request: FastifyRequest) => request.params as { id?: string; entryId?: string };
  const scopes: ScopeRoutes[] = [
    {
      prefix: '/api/bots/:id/knowledge',
      params: BotParams,
      entryParams: BotEntryParams,
      tags: ['knowledge'],
      what: "the bot's",
      operationId: (id) => id.replace('Knowledge', 'BotKnowledge'),
      async resolve(request) {
        const bot = await service.requireBot(ctx.db, tenantOf(request), paramsOf(request).id ?? '');
        return { botId: bot.id };
      },
    },
    {
      prefix: '/api/knowledge',
      params: Type.Object({}),
      entryParams: EntryParams,
      tags: ['knowledge'],
      what: 'tenant-wide (shared by all bots)',
      operationId: (id) => id,
      resolve: async () => ({ botId: null }),
    },
  ];

  for (const scope of scopes) {
    const security = SESSION_SECURITY;
    const view = requireUser(ctx, 'knowledge:view');
    const edit = requireUser(ctx, 'knowledge:edit');

    app.get(
      scope.prefix,
      {
        onRequest: view,
        schema: {
          operationId: scope.operationId('listKnowledgeEntries'),
          tags: scope.tags,
          summary: `List ${scope.what} knowledge entries (newest first, without full content)`,
          security,
          params: scope.params,
          querystring: ListQuery,
          response: { 200: ListResponse, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const where = await scope.resolve(request);
        const query = request.query as Static<typeof ListQuery>;
        const page = await service.listEntriesPage(ctx.db, tenantOf(request), where, query);
        return { data: page.data.map(serializeSummary), next_cursor: page.next_cursor, total: page.total };
      },
    );

    app.post(
      scope.prefix,
      {
        onRequest: edit,
        schema: {
          operationId: scope.operationId('createKnowledgeEntry'),
          tags: scope.tags,
          summary: `Create a ${scope.what} knowledge entry; it is chunked and indexed at once`,
          security,
          params: scope.params,
          body: EntryBody,
          response: { 201: EntrySchema, ...errorResponses(400, 401, 403, 404, 413) },
        },
      },
      async (request, reply) => {
        const where = await scope.resolve(request);
        const user = currentUser(request);
        const entry = await service.createEntry(deps, user.tenantId, where, request.body, user.id);
        return reply.status(201).send(serializeEntry(entry));
      },
    );

    app.post(
      `${scope.prefix}/import`,
      {
        onRequest: edit,
        schema: {
          operationId: scope.operationId('importKnowledgeEntries'),
          tags: scope.tags,
          summary: `Import several ${scope.what} entries at once (JSON entries and files, or one raw text/Markdown file); all or nothing`,
          security,
          params: scope.params,
          querystring: ImportQuery,
          body: ImportBody,
          response: { 201: ImportResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const where = await scope.resolve(request);
        const user = currentUser(request);
        const inputs = importInputs(request.body, request.query);
        const entries = await service.importEntries(deps, user.tenantId, where, inputs, user.id);
        return reply.status(201).send({ imported: entries.length, entries: entries.map(summaryOf) });
      },
    );

    const entryId = (request: FastifyRequest) => paramsOf(request).entryId ?? '';

    app.get(
      `${scope.prefix}/:entryId`,
      {
        onRequest: view,
        schema: {
          operationId: scope.operationId('getKnowledgeEntry'),
          tags: scope.tags,
          summary: `One ${scope.what} knowledge entry with its content`,
          security,
          params: scope.entryParams,
          response: { 200: EntrySchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const where = await scope.resolve(request);
        return serializeEntry(await service.getEntry(ctx.db, tenantOf(request), where, entryId(request)));
      },
    );

    app.put(
      `${scope.prefix}/:entryId`,
      {
        onRequest: edit,
        schema: {
          operationId: scope.operationId('replaceKnowledgeEntry'),
          tags: scope.tags,
          summary: `Replace a ${scope.what} knowledge entry; it is re-indexed in the same transaction`,
          security,
          params: scope.entryParams,
          body: EntryBody,
          response: { 200: EntrySchema, ...errorResponses(400, 401, 403, 404, 413) },
        },
      },
      async (request) => {
        const where = await scope.resolve(request);
        const body = request.body as Static<typeof EntryBody>;
        const entry = await service.replaceEntry(deps, tenantOf(request), where, entryId(request), body);
        return serializeEntry(entry);
      },
    );

    app.delete(
      `${scope.prefix}/:entryId`,
      {
        onRequest: edit,
        schema: {
          operationId: scope.operationId('deleteKnowledgeEntry'),
          tags: scope.tags,
          summary: `Delete a ${scope.what} knowledge entry and its search chunks`,
          security,
          params: scope.entryParams,
          response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        const where = await scope.resolve(request);
        await service.removeEntry(ctx.db, tenantOf(request), where, entryId(request));
        return reply.status(204).send(null);
      },
    );
  }

  app.get(
    '/api/bots/:id/knowledge/search',
    {
      onRequest: requireUser(ctx, 'knowledge:view'),
      schema: {
        operationId: 'testKnowledgeSearch',
        tags: ['knowledge'],
        summary: 'Hit test: what the chat would retrieve for a message, with scores',
        security: SESSION_SECURITY,
        params: BotParams,
        querystring: SearchQuery,
        response: { 200: SearchResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const bot = await service.requireBot(ctx.db, tenantId, request.params.id);
      const { q, limit } = request.query;
      const { minScore, hits, decision } = await service.hitTest(deps, tenantId, bot, q, limit ?? 3);
      return {
        query: q,
        min_score: minScore,
        decision: {
          answer: decision.answer,
          reason: decision.reason,
          key_terms: decision.keyTerms,
          missing_terms: decision.missingTerms,
        },
        results: hits.map((hit) => ({
          entry_id: hit.entryId,
          chunk_id: hit.chunkId,
          title: hit.title,
          content: hit.content,
          score: hit.score,
          source_url: hit.sourceUrl,
          scope: hit.botId === null ? ('tenant' as const) : ('bot' as const),
          used_in_chat: hit.usedInChat,
        })),
      };
    },
  );

  app.get(
    '/api/knowledge/onboarding',
    {
      onRequest: requireUser(ctx, 'knowledge:view'),
      schema: {
        operationId: 'getKnowledgeOnboarding',
        tags: ['knowledge'],
        summary: "The tenant's knowledge-base onboarding checklist",
        security: SESSION_SECURITY,
        response: { 200: OnboardingResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => describeOnboarding(await findOnboarding(ctx.db, tenantOf(request))),
  );

  app.put(
    '/api/knowledge/onboarding/steps/:step',
    {
      onRequest: requireUser(ctx, 'knowledge:edit'),
      schema: {
        operationId: 'setKnowledgeOnboardingStep',
        tags: ['knowledge'],
        summary: 'Mark an onboarding step done or not done',
        security: SESSION_SECURITY,
        params: OnboardingStepParams,
        body: OnboardingStepBody,
        response: { 200: OnboardingResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const step = request.params.step;
      if (!(ONBOARDING_STEP_KEYS as string[]).includes(step)) throw notFound('Onboarding step');
      const steps = await setOnboardingStep(
        ctx.db,
        tenantOf(request),
        step as OnboardingStepKey,
        request.body.done,
      );
      return describeOnboarding(steps);
    },
  );
};

/** Entries of an import request: JSON entries and files, or one raw file with ?title / ?filename. */
function importInputs(body: Static<typeof ImportBody>, query: Static<typeof ImportQuery>): EntryInput[] {
  if (typeof body === 'string') {
    return [fileEntry({ filename: query.filename ?? 'import.md', content: body }, query.title)];
  }
  if (query.title || query.filename) {
    throw badRequest("Query parameters 'title' and 'filename' apply to a raw text or Markdown body only", {
      code: 'raw_text_only',
    });
  }
  return [...(body.entries ?? []), ...(body.files ?? []).map((file) => fileEntry(file))];
}

/** A file becomes an entry titled by its first Markdown heading, else by its name. */
function fileEntry(
  file: { filename: string; content: string; source_url?: string | null; tags?: string[] },
  title?: string,
): EntryInput {
  const heading = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/m.exec(file.content)?.[1];
  const fromName = file.filename.replace(/^.*[\\/]/, '').replace(/\.(md|markdown|txt|text)$/i, '');
  return {
    title: (title ?? heading ?? fromName).slice(0, 300),
    content: file.content,
    source_url: file.source_url ?? null,
    tags: file.tags,
  };
}

function serializeEntry(entry: EntryRow) {
  return {
    id: entry.id,
    bot_id: entry.bot_id,
    scope: entry.bot_id === null ? ('tenant' as const) : ('bot' as const),
    title: entry.title,
    content: entry.content,
    source_url: entry.source_url,
    tags: entry.tags,
    language: entry.language,
    language_detected: entry.language_detected,
    chunk_count: entry.chunk_count,
    vectors_missing: entry.vectors_missing,
    source_name: entry.source_name,
    source_page: entry.source_page,
    created_by: entry.created_by,
    created_at: entry.created_at.toISOString(),
    updated_at: entry.updated_at.toISOString(),
  };
}

function serializeSummary(entry: EntrySummaryRow) {
  const { content: _content, ...rest } = serializeEntry({ ...entry, content: '' });
  return { ...rest, content_preview: entry.content_preview, content_length: entry.content_length };
}

function summaryOf(entry: EntryRow) {
  return serializeSummary({
    ...entry,
    content_preview: entry.content.slice(0, 200),
    content_length: Array.from(entry.content).length,
  });
}
