import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { AppContext } from '../../../shared/context.js';
import { currentUser, requireUser } from '../../auth/index.js';
import { badRequest } from '../../../http/errors.js';
import { receiveMultipart, UploadBudget } from '../../../http/multipart-upload.js';
import { SESSION_SECURITY, errorResponses } from '../../../http/schemas.js';
import { validatorCompiler } from '../../../http/validation.js';
import type { DocumentRow, ImportProgressRow } from './repository.js';
import {
  BotImportParams,
  ImportJsonBody,
  ImportListQuery,
  ImportListResponse,
  ImportMultipartBody,
  ImportParams,
  ImportSchema,
} from './schema.js';
import {
  createImport,
  getImport,
  importDeps,
  listImportsPage,
  MAX_IMPORT_FILES,
  type ImportDeps,
  type ImportRequest,
} from './service.js';
import type { EntryScope } from '../repository.js';
import { requireBot } from '../service.js';

const budgets = new WeakMap<AppContext, UploadBudget>();

/** Upload bytes in flight per tenant on this instance (one budget per service). */
export function uploadBudgetOf(ctx: AppContext): UploadBudget {
  let budget = budgets.get(ctx);
  if (!budget) {
    budget = new UploadBudget(ctx.config.knowledgeImport.maxTenantUploadBytes);
    budgets.set(ctx, budget);
  }
  return budget;
}

/** Import jobs of a bot's and of the tenant-wide knowledge (docs/knowledge.md, "Imports"). */
export const knowledgeImportRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const deps = importDeps(ctx);
  const uploads = uploadBudgetOf(ctx);
  await app.register(multipart, {
    limits: {
      fileSize: deps.limits.maxBytes,
      files: MAX_IMPORT_FILES,
      fields: 2,
      fieldSize: 4096,
      parts: MAX_IMPORT_FILES + 2,
    },
  });
  // Multipart parts are read and checked in the handler; JSON bodies by the schema.
  const jsonValidator = validatorCompiler();
  const bodyValidator: FastifySchemaCompiler<unknown> = (route) =>
    route.httpPart === 'body' && route.contentType === 'multipart/form-data'
      ? () => true
      : jsonValidator(route);

  const tenantOf = (request: FastifyRequest) => currentUser(request).tenantId;
  const scopes: {
    prefix: string;
    params: TObject;
    itemParams: TObject;
    what: string;
    /** The scope's operationId for the tenant-wide one (the bot's names the bot). */
    operationId: (tenantWide: string) => string;
    resolve: typeof botScope;
  }[] = [
    {
      prefix: '/api/bots/:id/knowledge/imports',
      params: Type.Object({ id: Type.String({ description: 'Bot id (UUID)' }) }),
      itemParams: BotImportParams,
      what: "the bot's",
      operationId: (id) => id.replace('Knowledge', 'BotKnowledge'),
      resolve: botScope,
    },
    {
      prefix: '/api/knowledge/imports',
      params: Type.Object({}),
      itemParams: ImportParams,
      what: 'tenant-wide',
      operationId: (id) => id,
      resolve: async () => ({ botId: null }),
    },
  ];
  async function botScope(request: FastifyRequest): Promise<EntryScope> {
    const { id } = request.params as { id?: string };
    return { botId: (await requireBot(ctx.db, tenantOf(request), id ?? '')).id };
  }

  for (const scope of scopes) {
    app.post(
      scope.prefix,
      {
        onRequest: requireUser(ctx, 'knowledge:edit'),
        validatorCompiler: bodyValidator,
        schema: {
          operationId: scope.operationId('startKnowledgeImport'),
          tags: ['knowledge'],
          summary: `Import documents into ${scope.what} knowledge as a background job (files, a web page, a sitemap)`,
          description:
            'multipart/form-data with up to 10 `files` (PDF, DOCX, HTML, text, Markdown) and optionally `url` / `sitemap_url`, or JSON `{url}` / `{sitemap_url}`. Answers 202 with the job; poll GET …/imports/{importId} for progress.',
          security: SESSION_SECURITY,
          params: scope.params,
          body: {
            content: {
              'application/json': { schema: ImportJsonBody },
              'multipart/form-data': { schema: ImportMultipartBody },
            },
          },
          response: { 202: ImportSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        const where = await scope.resolve(request);
        const user = currentUser(request);
        const { input, dispose } = request.isMultipart()
          ? await multipartInput(request, deps, uploads)
          : { input: jsonInput(request.body as Static<typeof ImportJsonBody>), dispose: async () => {} };
        try {
          const view = await createImport(deps, user.tenantId, where, input, user.id);
          return reply.status(202).send(serializeImport(view.job, view.documents));
        } finally {
          await dispose();
        }
      },
    );

    app.get(
      scope.prefix,
      {
        onRequest: requireUser(ctx, 'knowledge:view'),
        schema: {
          operationId: scope.operationId('listKnowledgeImports'),
          tags: ['knowledge'],
          summary: `Recent imports into ${scope.what} knowledge, newest first`,
          security: SESSION_SECURITY,
          params: scope.params,
          querystring: ImportListQuery,
          response: { 200: ImportListResponse, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const where = await scope.resolve(request);
        const tenantId = tenantOf(request);
        const query = request.query as Static<typeof ImportListQuery>;
        const page = await listImportsPage(ctx.db, tenantId, where, query);
        return {
          data: page.data.map((view) => {
            const { documents: _documents, ...summary } = serializeImport(view.job, view.documents);
            return summary;
          }),
          next_cursor: page.next_cursor,
        };
      },
    );

    app.get(
      `${scope.prefix}/:importId`,
      {
        onRequest: requireUser(ctx, 'knowledge:view'),
        schema: {
          operationId: scope.operationId('getKnowledgeImport'),
          tags: ['knowledge'],
          summary: `Status and progress of an import into ${scope.what} knowledge, with its documents`,
          security: SESSION_SECURITY,
          params: scope.itemParams,
          response: { 200: ImportSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const where = await scope.resolve(request);
        const { importId } = request.params as { importId: string };
        const view = await getImport(ctx.db, tenantOf(request), where, importId);
        return serializeImport(view.job, view.documents);
      },
    );
  }
};

function jsonInput(body: Static<typeof ImportJsonBody> | null | undefined): ImportRequest {
  return { files: [], url: body?.url, sitemapUrl: body?.sitemap_url };
}

const FILE_FIELDS = new Set(['files', 'file']);
const TEXT_FIELDS = new Set(['url', 'sitemap_url']);

/** Files (streamed to temporary files) and fields of a multipart request. */
async function multipartInput(
  request: FastifyRequest,
  deps: ImportDeps,
  budget: UploadBudget,
): Promise<{ input: ImportRequest; dispose: () => Promise<void> }> {
  const { limits } = deps;
  const upload = await receiveMultipart(
    request,
    currentUser(request).tenantId,
    budget,
    {
      maxFileBytes: limits.maxBytes,
      maxRequestBytes: limits.maxRequestBytes,
      maxTenantBytes: limits.maxTenantUploadBytes,
      maxFiles: MAX_IMPORT_FILES,
    },
    { fileFields: FILE_FIELDS, textFields: TEXT_FIELDS },
  );
  const input: ImportRequest = { files: upload.files };
  for (const [field, raw] of Object.entries(upload.fields)) {
    const value = raw.trim();
    if (value.length > 2000) {
      await upload.dispose();
      throw badRequest(`Field '${field}' is longer than 2000 characters`, {
        code: 'field_too_long',
        field,
        limit: 2000,
      });
    }
    if (value) input[field === 'url' ? 'url' : 'sitemapUrl'] = value;
  }
  return { input, dispose: upload.dispose };
}

/** The job as the API shows it; errors name the document (or the sitemap) in words. */
export function serializeImport(job: ImportProgressRow, documents: DocumentRow[]) {
  const errors = documents
    .filter((d) => d.status === 'failed')
    .map((d) => ({ document: d.name, code: d.error_code ?? 'failed', message: d.error ?? '' }));
  if (job.sitemap_error && job.sitemap_url) {
    errors.unshift({
      document: job.sitemap_url,
      code: job.sitemap_error_code ?? 'failed',
      message: job.sitemap_error,
    });
  }
  return {
    id: job.id,
    bot_id: job.bot_id,
    scope: job.bot_id === null ? ('tenant' as const) : ('bot' as const),
    status: job.status,
    sitemap_url: job.sitemap_url,
    documents_total: job.documents_total,
    documents_done: job.documents_done,
    pages_total: job.pages_total,
    pages_done: job.pages_done,
    entries_created: job.entries_created,
    errors,
    documents: documents.map((d) => ({
      id: d.id,
      kind: d.kind,
      name: d.name,
      status: d.status,
      pages: d.pages,
      entries_created: d.entries_created,
      error_code: d.error_code,
      error: d.error,
    })),
    created_by: job.created_by,
    created_at: job.created_at.toISOString(),
    started_at: job.started_at?.toISOString() ?? null,
    finished_at: job.finished_at?.toISOString() ?? null,
    updated_at: job.updated_at.toISOString(),
  };
}
