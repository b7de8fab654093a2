import type { Queryable } from '../../../db/database.js';
import { queryOne } from '../../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../../shared/pagination.js';
import { isUuid } from '../../../shared/ids.js';
import type { EntryScope } from '../repository.js';

/** SQL of knowledge imports (migration 0014). */

export type ImportStatus = 'queued' | 'running' | 'done' | 'failed';
export type DocumentStatus = 'pending' | 'done' | 'skipped' | 'failed';
export type DocumentKind = 'file' | 'page';

export interface ImportRow {
  id: string;
  tenant_id: string;
  bot_id: string | null;
  status: ImportStatus;
  sitemap_url: string | null;
  sitemap_read: boolean | null;
  sitemap_error_code: string | null;
  sitemap_error: string | null;
  created_by: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

/** An import with its progress counted from its documents. */
export interface ImportProgressRow extends ImportRow {
  documents_total: number;
  documents_done: number;
  pages_total: number;
  pages_done: number;
  entries_created: number;
}

export interface DocumentRow {
  id: string;
  import_id: string;
  position: number;
  kind: DocumentKind;
  name: string;
  media_type: string | null;
  sha256: string | null;
  status: DocumentStatus;
  error_code: string | null;
  error: string | null;
  pages: number | null;
  entries_created: number;
}

export interface DocumentWrite {
  kind: DocumentKind;
  name: string;
  mediaType: string | null;
  sha256: string | null;
}

/** Size of the parts a file's bytes are stored in (migration 0022). */
export const DOCUMENT_PART_BYTES = 1024 * 1024;

const SCOPE = 'bot_id IS NOT DISTINCT FROM';
const IMPORT_COLUMNS = `id, tenant_id, bot_id, status, sitemap_url, sitemap_read, sitemap_error_code, sitemap_error,
  created_by, created_at, started_at, finished_at, updated_at`;
const DOCUMENT_COLUMNS = `id, import_id, position, kind, name, media_type, sha256, status, error_code, error, pages,
  entries_created`;
/** Documents count as done once processed, whatever the outcome; pages are web pages. */
const PROGRESS = `
  (SELECT count(*)::int FROM knowledge_import_documents d WHERE d.import_id = i.id) AS documents_total,
  (SELECT count(*)::int FROM knowledge_import_documents d WHERE d.import_id = i.id AND d.status <> 'pending')
    AS documents_done,
  (SELECT count(*)::int FROM knowledge_import_documents d WHERE d.import_id = i.id AND d.kind = 'page') AS pages_total,
  (SELECT count(*)::int FROM knowledge_import_documents d
    WHERE d.import_id = i.id AND d.kind = 'page' AND d.status <> 'pending') AS pages_done,
  (SELECT coalesce(sum(d.entries_created), 0)::int FROM knowledge_import_documents d WHERE d.import_id = i.id)
    AS entries_created`;

export async function insertImport(
  tx: Queryable,
  tenantId: string,
  scope: EntryScope,
  input: { sitemapUrl: string | null; createdBy: string | null },
): Promise<ImportRow> {
  return (await queryOne<ImportRow>(
    tx,
    `INSERT INTO knowledge_imports (tenant_id, bot_id, sitemap_url, created_by)
     VALUES ($1, $2, $3, $4) RETURNING ${IMPORT_COLUMNS}`,
    [tenantId, scope.botId, input.sitemapUrl, input.createdBy],
  ))!;
}

/** Appends documents after the import's last one; answers their ids in order. */
export async function insertDocuments(
  tx: Queryable,
  tenantId: string,
  importId: string,
  documents: DocumentWrite[],
): Promise<string[]> {
  if (documents.length === 0) return [];
  const rows = await tx.query<{ id: string; position: number }>(
    `INSERT INTO knowledge_import_documents (tenant_id, import_id, position, kind, name, media_type, sha256)
     SELECT $1, $2, coalesce((SELECT max(position) + 1 FROM knowledge_import_documents WHERE import_id = $2), 0)
                    + d.ord - 1,
            d.kind, d.name, d.media_type, d.sha256
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[])
          WITH ORDINALITY AS d(kind, name, media_type, sha256, ord)
     RETURNING id, position`,
    [
      tenantId,
      importId,
      documents.map((d) => d.kind),
      documents.map((d) => d.name),
      documents.map((d) => d.mediaType),
      documents.map((d) => d.sha256),
    ],
  );
  return rows.sort((a, b) => a.position - b.position).map((row) => row.id);
}

/**
 * Stores a file's bytes as parts of at most DOCUMENT_PART_BYTES, one statement per part, so
 * only one part is in memory at a time. Each part travels as base64 text: both engines pass
 * text parameters natively, while PGlite converts bytea values byte by byte in JavaScript.
 */
export async function writeDocumentParts(
  tx: Queryable,
  tenantId: string,
  documentId: string,
  chunks: AsyncIterable<Buffer>,
): Promise<number> {
  let part = 0;
  let bytes = 0;
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += DOCUMENT_PART_BYTES) {
      const slice = chunk.subarray(at, at + DOCUMENT_PART_BYTES);
      await tx.query(
        `INSERT INTO knowledge_import_document_parts (document_id, tenant_id, part, bytes)
         VALUES ($1, $2, $3, decode($4, 'base64'))`,
        [documentId, tenantId, part, slice.toString('base64')],
      );
      part += 1;
      bytes += slice.length;
    }
  }
  return bytes;
}

/** A file's bytes, part by part in order. */
export async function* readDocumentParts(db: Queryable, documentId: string): AsyncGenerator<Buffer> {
  for (let part = 0; ; part += 1) {
    const row = await queryOne<{ bytes: string }>(
      db,
      `SELECT encode(bytes, 'base64') AS bytes FROM knowledge_import_document_parts
       WHERE document_id = $1 AND part = $2`,
      [documentId, part],
    );
    if (!row) return;
    yield Buffer.from(row.bytes, 'base64');
  }
}

export function findImport(
  db: Queryable,
  tenantId: string,
  scope: EntryScope,
  importId: string,
): Promise<ImportProgressRow | undefined> {
  if (!isUuid(importId)) return Promise.resolve(undefined);
  return queryOne<ImportProgressRow>(
    db,
    `SELECT ${IMPORT_COLUMNS.replace(/(\w+)/g, 'i.$1')}, ${PROGRESS}
     FROM knowledge_imports i WHERE i.tenant_id = $1 AND i.${SCOPE} $2 AND i.id = $3`,
    [tenantId, scope.botId, importId],
  );
}

export function listImports(
  db: Queryable,
  tenantId: string,
  scope: EntryScope,
  page: { limit: number; after?: TimeCursor },
): Promise<(ImportProgressRow & { cursor_at: string })[]> {
  return db.query<ImportProgressRow & { cursor_at: string }>(
    `SELECT ${IMPORT_COLUMNS.replace(/(\w+)/g, 'i.$1')}, ${PROGRESS},
            ${cursorTimestampSql('i.created_at')} AS cursor_at
     FROM knowledge_imports i
     WHERE i.tenant_id = $1 AND i.${SCOPE} $2
       AND ($3::timestamptz IS NULL OR (i.created_at, i.id) < ($3::timestamptz, $4::uuid))
     ORDER BY i.created_at DESC, i.id DESC LIMIT $5`,
    [tenantId, scope.botId, page.after?.at ?? null, page.after?.id ?? null, page.limit + 1],
  );
}

/** The documents of imports, in order (without file contents). */
export function listDocuments(db: Queryable, tenantId: string, importIds: string[]): Promise<DocumentRow[]> {
  if (importIds.length === 0) return Promise.resolve([]);
  return db.query<DocumentRow>(
    `SELECT ${DOCUMENT_COLUMNS} FROM knowledge_import_documents
     WHERE tenant_id = $1 AND import_id = ANY($2::uuid[]) ORDER BY import_id, position`,
    [tenantId, importIds],
  );
}

// Statements of the import worker. Like the webhook worker's they work across tenants.

/**
 * Claims the open import whose turn it is (least recently advanced first, so several imports
 * take turns), unless another worker holds it. The lease token marks this worker's claim.
 */
export function claimImport(
  db: Queryable,
  leaseToken: string,
  leaseMs: number,
): Promise<ImportRow | undefined> {
  return queryOne<ImportRow>(
    db,
    `UPDATE knowledge_imports i
     SET status = 'running', lease_token = $1, locked_until = now() + $2 * interval '1 millisecond',
         started_at = coalesce(i.started_at, now()), updated_at = now()
     FROM (
       SELECT id FROM knowledge_imports
       WHERE status IN ('queued', 'running') AND (locked_until IS NULL OR locked_until <= now())
       ORDER BY updated_at, id
       LIMIT 1
       FOR UPDATE SKIP LOCKED
     ) due
     WHERE i.id = due.id
     RETURNING ${IMPORT_COLUMNS.replace(/(\w+)/g, 'i.$1')}`,
    [leaseToken, leaseMs],
  );
}

/**
 * Locks the import for the rest of the transaction while this worker's claim still holds;
 * false when the lease ran out and another worker took the import over.
 */
export async function holdClaim(tx: Queryable, importId: string, leaseToken: string): Promise<boolean> {
  const row = await queryOne(
    tx,
    'SELECT 1 FROM knowledge_imports WHERE id = $1 AND lease_token = $2 FOR UPDATE',
    [importId, leaseToken],
  );
  return row !== undefined;
}

/** Ends this worker's turn: the import is free for the next step (of any worker). */
export async function releaseClaim(tx: Queryable, importId: string): Promise<void> {
  await tx.query(
    'UPDATE knowledge_imports SET locked_until = NULL, lease_token = NULL, updated_at = now() WHERE id = $1',
    [importId],
  );
}

export async function nextDocument(
  db: Queryable,
  importId: string,
): Promise<(DocumentRow & { tenant_id: string }) | undefined> {
  return queryOne(
    db,
    `SELECT ${DOCUMENT_COLUMNS}, tenant_id FROM knowledge_import_documents
     WHERE import_id = $1 AND status = 'pending' ORDER BY position LIMIT 1`,
    [importId],
  );
}

/** Counts a worker's start on the document; answers the attempts so far, this one included. */
export async function startDocument(db: Queryable, documentId: string): Promise<number> {
  const row = await queryOne<{ attempts: number }>(
    db,
    'UPDATE knowledge_import_documents SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts',
    [documentId],
  );
  return row?.attempts ?? 0;
}

/** Takes back a start on a document that was not interrupted (its worker lost the lease). */
export async function forgetAttempt(db: Queryable, documentId: string): Promise<void> {
  await db.query(
    "UPDATE knowledge_import_documents SET attempts = greatest(attempts - 1, 0) WHERE id = $1 AND status = 'pending'",
    [documentId],
  );
}

export async function finishDocument(
  tx: Queryable,
  documentId: string,
  outcome: {
    status: Exclude<DocumentStatus, 'pending'>;
    entriesCreated: number;
    pages: number | null;
    errorCode: string | null;
    error: string | null;
  },
): Promise<void> {
  await tx.query(
    `UPDATE knowledge_import_documents
     SET status = $2, entries_created = $3, pages = $4, error_code = $5, error = $6, updated_at = now()
     WHERE id = $1`,
    [documentId, outcome.status, outcome.entriesCreated, outcome.pages, outcome.errorCode, outcome.error],
  );
  // The file's bytes are not needed any more.
  await tx.query('DELETE FROM knowledge_import_document_parts WHERE document_id = $1', [documentId]);
}

export async function recordSitemap(
  tx: Queryable,
  importId: string,
  outcome: { errorCode: string | null; error: string | null },
): Promise<void> {
  await tx.query(
    `UPDATE knowledge_imports SET sitemap_read = true, sitemap_error_code = $2, sitemap_error = $3 WHERE id = $1`,
    [importId, outcome.errorCode, outcome.error],
  );
}

/** Closes an import: done when any document was imported or found unchanged, else failed. */
export async function finishImport(tx: Queryable, importId: string): Promise<void> {
  await tx.query(
    `UPDATE knowledge_imports i
     SET status = CASE WHEN EXISTS (SELECT 1 FROM knowledge_import_documents d
                                    WHERE d.import_id = i.id AND d.status IN ('done', 'skipped'))
                       THEN 'done' ELSE 'failed' END,
         finished_at = now(), locked_until = NULL, lease_token = NULL, updated_at = now()
     WHERE i.id = $1`,
    [importId],
  );
}
