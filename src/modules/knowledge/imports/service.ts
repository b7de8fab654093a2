import { createHash } from 'node:crypto';
import type { Config } from '../../../config.js';
import type { AppContext } from '../../../shared/context.js';
import type { Queryable } from '../../../db/database.js';
import { badRequest, notFound } from '../../../http/errors.js';
import { TargetRefusedError, urlRefusal, hostOf, resolveAllowedAddresses } from '../../../shared/ssrf.js';
import {
  decodeTimeCursor,
  DEFAULT_PAGE_SIZE,
  encodeTimeCursor,
  splitPage,
} from '../../../shared/pagination.js';
import { importUrl } from './fetch.js';
import * as repo from './repository.js';
import type { DocumentRow, DocumentWrite, ImportProgressRow } from './repository.js';
import type { EntryScope } from '../repository.js';
import { holdScope, type KnowledgeDeps } from '../service.js';

/**
 * Knowledge imports: a request stores a job with its documents (uploaded files, a web page, a
 * sitemap) and is answered at once; the background worker (import-worker.ts) imports one
 * document per step, so jobs survive restarts and several instances share the work.
 */

export interface ImportDeps extends KnowledgeDeps {
  limits: Config['knowledgeImport'];
}

export function importDeps(ctx: AppContext): ImportDeps {
  return {
    db: ctx.db,
    embeddings: ctx.embeddings,
    maxEntryBytes: ctx.config.knowledge.maxEntryBytes,
    minScore: ctx.config.knowledge.minScore,
    limits: ctx.config.knowledgeImport,
  };
}

/** Files in one import request. */
export const MAX_IMPORT_FILES = 10;
const MAX_FILE_NAME = 255;

/** A received file: its bytes wait in a temporary file until they are stored. */
export interface UploadedFile {
  name: string;
  mediaType: string | null;
  size: number;
  sha256: string;
  /** The bytes in chunks (of at most 1 MB), read from the temporary file. */
  chunks(): AsyncIterable<Buffer>;
}

export interface ImportRequest {
  files: UploadedFile[];
  url?: string;
  sitemapUrl?: string;
}

export interface ImportView {
  job: ImportProgressRow;
  documents: DocumentRow[];
}

export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A file's name without folders, at most 255 characters. */
export function fileName(raw: string): string {
  const base = raw.replace(/^.*[\\/]/, '').trim() || 'upload';
  return base.length > MAX_FILE_NAME ? base.slice(base.length - MAX_FILE_NAME) : base;
}

/**
 * Shape and address of a URL to import: refused at once when it cannot be fetched (the worker
 * checks again at every connection, so a later DNS change is refused there).
 */
async function checkedUrl(field: string, raw: string, allowPrivate: boolean): Promise<string> {
  try {
    const url = importUrl(raw);
    await resolveAllowedAddresses(hostOf(url), allowPrivate);
    return url.toString();
  } catch (error) {
    if (error instanceof TargetRefusedError) throw urlRefusal(field, error);
    throw error;
  }
}

/** Stores an import job with its documents; the worker picks it up. */
export async function createImport(
  deps: ImportDeps,
  tenantId: string,
  scope: EntryScope,
  request: ImportRequest,
  createdBy: string | null,
): Promise<ImportView> {
  const { files } = request;
  if (files.length === 0 && !request.url && !request.sitemapUrl) {
    throw badRequest('Nothing to import: send files, a url or a sitemap_url', { code: 'import_empty' });
  }
  if (files.length > MAX_IMPORT_FILES) {
    throw badRequest(`An import holds at most ${MAX_IMPORT_FILES} files, got ${files.length}`, {
      code: 'import_too_many',
      field: 'files',
      limit: MAX_IMPORT_FILES,
    });
  }
  for (const file of files) {
    if (file.size === 0) {
      throw badRequest(`File '${fileName(file.name)}' is empty`, {
        code: 'file_empty',
        field: 'files',
        file: fileName(file.name),
      });
    }
  }
  const url = request.url ? await checkedUrl('url', request.url, deps.limits.allowPrivateTargets) : null;
  const sitemapUrl = request.sitemapUrl
    ? await checkedUrl('sitemap_url', request.sitemapUrl, deps.limits.allowPrivateTargets)
    : null;
  const importId = await deps.db.transaction(async (tx) => {
    await holdScope(tx, tenantId, scope);
    const job = await repo.insertImport(tx, tenantId, scope, { sitemapUrl, createdBy });
    // File by file, part by part: only one part of a file is in memory while the job is written.
    for (const file of files) {
      const document: DocumentWrite = {
        kind: 'file',
        name: fileName(file.name),
        mediaType: file.mediaType?.slice(0, 200) ?? null,
        sha256: file.sha256,
      };
      const [documentId] = await repo.insertDocuments(tx, tenantId, job.id, [document]);
      await repo.writeDocumentParts(tx, tenantId, documentId!, file.chunks());
    }
    if (url) {
      const page: DocumentWrite = { kind: 'page', name: url, mediaType: null, sha256: null };
      await repo.insertDocuments(tx, tenantId, job.id, [page]);
    }
    return job.id;
  });
  return getImport(deps.db, tenantId, scope, importId);
}

export async function getImport(
  db: Queryable,
  tenantId: string,
  scope: EntryScope,
  importId: string,
): Promise<ImportView> {
  const job = await repo.findImport(db, tenantId, scope, importId);
  if (!job) throw notFound('Knowledge import');
  return { job, documents: await repo.listDocuments(db, tenantId, [job.id]) };
}

const IMPORT_LIST = 'knowledge_imports';

/** One page of the scope's imports, newest first, each with its documents. */
export async function listImportsPage(
  db: Queryable,
  tenantId: string,
  scope: EntryScope,
  query: { limit?: number; cursor?: string },
): Promise<{ data: ImportView[]; next_cursor: string | null }> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await repo.listImports(db, tenantId, scope, {
    limit,
    after: decodeTimeCursor(IMPORT_LIST, query.cursor),
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(IMPORT_LIST, { at: last.cursor_at, id: last.id }),
  );
  const documents = await repo.listDocuments(
    db,
    tenantId,
    page.data.map((job) => job.id),
  );
  return {
    data: page.data.map((job) => ({ job, documents: documents.filter((d) => d.import_id === job.id) })),
    next_cursor: page.next_cursor,
  };
}
