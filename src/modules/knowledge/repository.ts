import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';
import { codeVariants, TS_CONFIG, type Language } from '../../shared/text.js';

export interface EntryRow {
  id: string;
  tenant_id: string;
  bot_id: string | null;
  title: string;
  content: string;
  source_url: string | null;
  tags: string[];
  language: Language;
  language_detected: boolean;
  chunk_count: number;
  /** Stored while the embeddings endpoint failed: its chunks wait for the backfill. */
  vectors_missing: boolean;
  /** Imported entries: the document's idempotency key and SHA-256, file name, PDF page. */
  source_key: string | null;
  source_hash: string | null;
  source_name: string | null;
  source_page: number | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An entry without its (up to 1 MB) content, for lists. */
export type EntrySummaryRow = Omit<EntryRow, 'content'> & { content_preview: string; content_length: number };

export interface EntryWrite {
  title: string;
  content: string;
  sourceUrl: string | null;
  tags: string[];
  language: Language;
  languageDetected: boolean;
  vectorsMissing: boolean;
  /** Set for entries created by an import (see imports-service.ts). */
  source?: EntrySource;
}

export interface EntrySource {
  key: string;
  hash: string;
  name: string | null;
  page: number | null;
}

/**
 * Which entries a request sees: those of one bot, or the tenant-wide ones (botId null).
 * A bot's entries are never reachable through the tenant-wide paths and vice versa.
 */
export type EntryScope = { botId: string | null };

const SCOPE = 'bot_id IS NOT DISTINCT FROM';

/** The written fields in the order both statements take them. */
const entryFields = (entry: EntryWrite) => [
  entry.title,
  entry.content,
  entry.sourceUrl,
  entry.tags,
  entry.language,
  entry.languageDetected,
  entry.vectorsMissing,
];

export async function insertEntry(
  tx: Queryable,
  tenantId: string,
  scope: EntryScope,
  entry: EntryWrite & { createdBy: string | null },
): Promise<EntryRow> {
  return (await queryOne<EntryRow>(
    tx,
    `INSERT INTO knowledge_entries
       (tenant_id, bot_id, title, content, source_url, tags, language, language_detected, vectors_missing, created_by,
        source_key, source_hash, source_name, source_page)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING *`,
    [
      tenantId,
      scope.botId,
      ...entryFields(entry),
      entry.createdBy,
      entry.source?.key ?? null,
      entry.source?.hash ?? null,
      entry.source?.name ?? null,
      entry.source?.page ?? null,
    ],
  ))!;
}

/** One statement on one entry ($1 tenant, $2 bot scope, $3 entry id); undefined for a foreign id. */
function entryStatement(
  db: Queryable,
  sql: string,
  at: { tenantId: string; scope: EntryScope; entryId: string },
  params: unknown[] = [],
): Promise<EntryRow | undefined> {
  if (!isUuid(at.entryId)) return Promise.resolve(undefined);
  return queryOne<EntryRow>(db, sql, [at.tenantId, at.scope.botId, at.entryId, ...params]);
}

/** Replaces the entry's fields; undefined when the entry is not in this tenant and scope. */
export function updateEntry(
  tx: Queryable,
  tenantId: string,
  scope: EntryScope,
  entryId: string,
  entry: EntryWrite,
): Promise<EntryRow | undefined> {
  return entryStatement(
    tx,
    `UPDATE knowledge_entries
     SET title = $4, content = $5, source_url = $6, tags = $7, language = $8, language_detected = $9,
         vectors_missing = $10, updated_at = now()
     WHERE tenant_id = $1 AND ${SCOPE} $2 AND id = $3 RETURNING *`,
    { tenantId, scope, entryId },
    entryFields(entry),
  );
}

export function findEntry(db: Queryable, tenantId: string, scope: EntryScope, entryId: string) {
  return entryStatement(
    db,
    `SELECT * FROM knowledge_entries WHERE tenant_id = $1 AND ${SCOPE} $2 AND id = $3`,
    {
      tenantId,
      scope,
      entryId,
    },
  );
}

export async function deleteEntry(
  db: Queryable,
  tenantId: string,
  scope: EntryScope,
  entryId: string,
): Promise<boolean> {
  if (!isUuid(entryId)) return false;
  const rows = await db.query(
    `DELETE FROM knowledge_entries WHERE tenant_id = $1 AND ${SCOPE} $2 AND id = $3 RETURNING id`,
    [tenantId, scope.botId, entryId],
  );
  return rows.length > 0;
}

export async function listEntries(
  db: Queryable,
  tenantId: string,
  scope: EntryScope,
  page: { limit: number; after?: TimeCursor; tag?: string },
): Promise<{ entries: (EntrySummaryRow & { cursor_at: string })[]; total: number }> {
  const params = [tenantId, scope.botId, page.tag ?? null, page.after?.at ?? null, page.after?.id ?? null];
  const where = `tenant_id = $1 AND ${SCOPE} $2 AND ($3::text IS NULL OR $3 = ANY (tags))`;
  const [entries, count] = await Promise.all([
    // One row more than the page: its presence says that another page exists.
    db.query<EntrySummaryRow & { cursor_at: string }>(
      `SELECT id, tenant_id, bot_id, title, source_url, tags, language, language_detected, chunk_count,
              vectors_missing, source_key, source_hash, source_name, source_page, created_by, created_at,
              updated_at, left(content, 200) AS content_preview,
              length(content) AS content_length, ${cursorTimestampSql('created_at')} AS cursor_at
       FROM knowledge_entries
       WHERE ${where} AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $6`,
      [...params, page.limit + 1],
    ),
    queryOne<{ n: number }>(
      db,
      `SELECT count(*)::int AS n FROM knowledge_entries WHERE ${where}`,
      params.slice(0, 3),
    ),
  ]);
  return { entries, total: count?.n ?? 0 };
}

/**
 * Holds a source of the scope for the rest of the transaction (an advisory lock): imports of
 * the same source into one scope wait for each other instead of both writing.
 */
export async function holdSource(
  tx: Queryable,
  tenantId: string,
  scope: EntryScope,
  sourceKey: string,
): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `knowledge-source:${tenantId}:${scope.botId ?? 'tenant'}:${sourceKey}`,
  ]);
}

/** The SHA-256 of what an earlier import of this source stored in the scope, if any. */
export async function findSourceHash(
  db: Queryable,
  tenantId: string,
  scope: EntryScope,
  sourceKey: string,
): Promise<string | null | undefined> {
  const row = await queryOne<{ source_hash: string | null }>(
    db,
    `SELECT source_hash FROM knowledge_entries
     WHERE tenant_id = $1 AND ${SCOPE} $2 AND source_key = $3 LIMIT 1`,
    [tenantId, scope.botId, sourceKey],
  );
  return row ? row.source_hash : undefined;
}

/** Deletes the entries (and through the cascade their chunks) an earlier import of a source made. */
export async function deleteSourceEntries(
  tx: Queryable,
  tenantId: string,
  scope: EntryScope,
  sourceKey: string,
): Promise<number> {
  const rows = await tx.query(
    `DELETE FROM knowledge_entries WHERE tenant_id = $1 AND ${SCOPE} $2 AND source_key = $3 RETURNING id`,
    [tenantId, scope.botId, sourceKey],
  );
  return rows.length;
}

export interface ChunkWrite {
  content: string;
  embedding: number[] | null;
  norm: number | null;
}

/**
 * Re-indexes an entry: drops its chunks and writes the new ones with their tsvector (title
 * weighted A, chunk text B, in the entry's language; the search forms of codes and numbers C,
 * unstemmed). Runs inside the entry's transaction; triggers keep the BM25 statistics
 * (migration 0013) in step.
 */
export async function replaceChunks(
  tx: Queryable,
  tenantId: string,
  entry: Pick<EntryRow, 'id' | 'bot_id' | 'title' | 'language'>,
  chunks: ChunkWrite[],
): Promise<void> {
  await tx.query('DELETE FROM knowledge_chunks WHERE tenant_id = $1 AND entry_id = $2', [tenantId, entry.id]);
  if (chunks.length > 0) {
    const embeddings = chunks.every((c) => c.embedding)
      ? JSON.stringify(chunks.map((c) => c.embedding))
      : null;
    await tx.query(
      `INSERT INTO knowledge_chunks (tenant_id, entry_id, bot_id, position, content, tsv, embedding, embedding_norm)
       SELECT $1, $2, $3, c.ord - 1, c.content,
              setweight(to_tsvector($4::regconfig, $5), 'A') || setweight(to_tsvector($4::regconfig, c.content), 'B')
                || setweight(to_tsvector('simple', ($9::text[])[c.ord]), 'C'),
              CASE WHEN $7::jsonb IS NULL THEN NULL
                   ELSE ARRAY(SELECT x::real FROM jsonb_array_elements_text($7::jsonb -> (c.ord::int - 1)) AS x) END,
              CASE WHEN $7::jsonb IS NULL THEN NULL ELSE ($8::real[])[c.ord] END
       FROM unnest($6::text[]) WITH ORDINALITY AS c(content, ord)`,
      [
        tenantId,
        entry.id,
        entry.bot_id,
        TS_CONFIG[entry.language],
        entry.title,
        chunks.map((c) => c.content),
        embeddings,
        chunks.map((c) => c.norm ?? 0),
        chunks.map((c) => codeVariants(`${entry.title}\n${c.content}`).join(' ')),
      ],
    );
  }
  await tx.query('UPDATE knowledge_entries SET chunk_count = $3 WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    entry.id,
    chunks.length,
  ]);
}

/**
 * Adds words to the tenant's typo vocabulary; stop words of any of the four languages are left
 * out. Returns how many were new (the caller then moves the tenant's vocabulary version on).
 */
export async function addTerms(tx: Queryable, tenantId: string, words: string[]): Promise<number> {
  if (words.length === 0) return 0;
  const rows = await tx.query<{ added: number }>(
    `WITH added AS (
       INSERT INTO knowledge_terms (tenant_id, term)
       SELECT $1, w FROM unnest($2::text[]) AS w
       WHERE length(to_tsvector('german', w)) > 0 AND length(to_tsvector('english', w)) > 0
         AND length(to_tsvector('french', w)) > 0 AND length(to_tsvector('italian', w)) > 0
       ON CONFLICT DO NOTHING
       RETURNING 1
     )
     SELECT count(*)::int AS added FROM added`,
    [tenantId, words],
  );
  return rows[0]?.added ?? 0;
}

/** The onboarding steps the tenant has done (step → when), or undefined before the checklist starts. */
export async function findOnboarding(
  db: Queryable,
  tenantId: string,
): Promise<Record<string, string> | undefined> {
  const row = await queryOne<{ steps: Record<string, string> }>(
    db,
    'SELECT steps FROM knowledge_onboarding WHERE tenant_id = $1',
    [tenantId],
  );
  return row?.steps;
}

/** Marks a step done (keeping the first time) or not done; starts the checklist when needed. */
export async function setOnboardingStep(
  db: Queryable,
  tenantId: string,
  step: string,
  done: boolean,
): Promise<Record<string, string>> {
  const row = await queryOne<{ steps: Record<string, string> }>(
    db,
    done
      ? `INSERT INTO knowledge_onboarding (tenant_id, steps) VALUES ($1, jsonb_build_object($2::text, now()))
         ON CONFLICT (tenant_id) DO UPDATE
         SET steps = knowledge_onboarding.steps
                     || jsonb_build_object($2::text, coalesce(knowledge_onboarding.steps -> $2::text, to_jsonb(now()))),
             updated_at = now()
         RETURNING steps`
      : `INSERT INTO knowledge_onboarding (tenant_id) VALUES ($1)
         ON CONFLICT (tenant_id) DO UPDATE SET steps = knowledge_onboarding.steps - $2::text, updated_at = now()
         RETURNING steps`,
    [tenantId, step],
  );
  return row!.steps;
}

/** How many entries a bot answers from: its own and the tenant's entries for all bots. */
export async function countBotEntries(db: Queryable, tenantId: string, botId: string): Promise<number> {
  const row = await queryOne<{ n: number }>(
    db,
    'SELECT count(*)::int AS n FROM knowledge_entries WHERE tenant_id = $1 AND (bot_id = $2 OR bot_id IS NULL)',
    [tenantId, botId],
  );
  return row?.n ?? 0;
}

/** Entries stored without vectors (the backfill's work), oldest first, at most `limit`. */
export function entriesMissingVectors(
  db: Queryable,
  limit: number,
): Promise<{ id: string; tenant_id: string; title: string }[]> {
  return db.query<{ id: string; tenant_id: string; title: string }>(
    `SELECT id, tenant_id, title FROM knowledge_entries WHERE vectors_missing
       ORDER BY created_at, id LIMIT ${limit}`,
  );
}

/** The entry's current chunks in order. */
export function entryChunks(
  db: Queryable,
  tenantId: string,
  entryId: string,
): Promise<{ id: string; content: string }[]> {
  return db.query<{ id: string; content: string }>(
    'SELECT id, content FROM knowledge_chunks WHERE tenant_id = $1 AND entry_id = $2 ORDER BY position',
    [tenantId, entryId],
  );
}

/** Writes the vectors of those of the given chunks the entry still holds. */
export async function writeChunkVectors(
  tx: Queryable,
  tenantId: string,
  entryId: string,
  vectors: { id: string; embedding: number[] | undefined; norm: number }[],
): Promise<void> {
  await tx.query(
    `UPDATE knowledge_chunks c SET embedding = v.embedding, embedding_norm = v.norm
           FROM (SELECT x.id, ARRAY(SELECT e::real FROM jsonb_array_elements_text(x.embedding) AS e) AS embedding, x.norm
                 FROM jsonb_to_recordset($3::jsonb) AS x(id uuid, embedding jsonb, norm real)) v
           WHERE c.tenant_id = $1 AND c.entry_id = $2 AND c.id = v.id`,
    [tenantId, entryId, JSON.stringify(vectors)],
  );
}

/** Clears the entry's `vectors_missing` unless one of its chunks is still without a vector. */
export async function clearVectorsMissing(tx: Queryable, tenantId: string, entryId: string): Promise<void> {
  await tx.query(
    `UPDATE knowledge_entries e SET vectors_missing = false
           WHERE e.tenant_id = $1 AND e.id = $2
             AND NOT EXISTS (SELECT 1 FROM knowledge_chunks c WHERE c.tenant_id = $1 AND c.entry_id = $2 AND c.embedding IS NULL)`,
    [tenantId, entryId],
  );
}
