import type { Queryable } from '../../db/database.js';
import { isUuid } from '../bots/repository.js';
import { vectorNorm, type EmbeddingsClient } from './embeddings.js';
import { queryWords } from './text.js';

export interface KnowledgeHit {
  entryId: string;
  chunkId: string;
  title: string;
  content: string;
  /** 0..1, see docs/knowledge.md "Scores". */
  score: number;
  sourceUrl: string | null;
  /** null for a tenant-wide entry. */
  botId: string | null;
}

export interface SearchInput {
  botId: string;
  query: string;
  /** Hits returned at most; default 3 (the chat pipeline's top 3). */
  limit?: number;
  /** Hits scoring below this are dropped. */
  minScore?: number;
  /** When given, vector similarity is fused with the full-text score (hybrid search). */
  embeddings?: EmbeddingsClient | null;
}

export const DEFAULT_SEARCH_LIMIT = 3;
export const MAX_SEARCH_LIMIT = 50;

/** Share of the score given by how many query words a chunk contains (the rest is ts_rank_cd). */
const COVERAGE_WEIGHT = 0.85;
/** A query word that no candidate contains counts half: it cannot tell chunks apart, but a
 *  question full of unknown words is less likely answered by a chunk that matches one word. */
const UNKNOWN_WORD_WEIGHT = 0.5;
/** Lowest trigram similarity at which a vocabulary word counts as the intended spelling. */
const MIN_CORRECTION_SIMILARITY = 0.5;
const VECTOR_CANDIDATES = 20;

/** One tsquery that matches a word's stem in each of the four indexed languages. */
function anyLanguage(expr: string): string {
  return ['german', 'english', 'french', 'italian'].map((c) => `to_tsquery('${c}', ${expr})`).join(' || ');
}

interface ResolvedTerm {
  word: string;
  /** Vocabulary spellings close to the word (typo tolerance), best first. */
  corrections: { term: string; similarity: number }[];
}

/**
 * Keeps the query words that are no stop word in any of the four languages, and looks up
 * close spellings in the tenant's vocabulary for words it does not contain verbatim.
 */
async function resolveTerms(db: Queryable, tenantId: string, words: string[]): Promise<ResolvedTerm[]> {
  const rows = await db.query<{
    word: string;
    meaningful: boolean;
    corrections: ResolvedTerm['corrections'];
  }>(
    `SELECT w.word,
       (length(to_tsvector('german', w.word)) > 0 AND length(to_tsvector('english', w.word)) > 0
        AND length(to_tsvector('french', w.word)) > 0 AND length(to_tsvector('italian', w.word)) > 0) AS meaningful,
       CASE WHEN length(w.word) < 4
              OR EXISTS (SELECT 1 FROM knowledge_terms k WHERE k.tenant_id = $1 AND k.term = w.word)
         THEN '[]'::json
         ELSE (SELECT coalesce(json_agg(json_build_object('term', x.term, 'similarity', x.sim) ORDER BY x.sim DESC), '[]'::json)
               FROM (SELECT k.term, similarity(k.term, w.word) AS sim FROM knowledge_terms k
                     WHERE k.tenant_id = $1 AND k.term % w.word
                     ORDER BY sim DESC, k.term LIMIT 3) x
               WHERE x.sim >= $3)
       END AS corrections
     FROM unnest($2::text[]) WITH ORDINALITY AS w(word, idx)
     ORDER BY w.idx`,
    [tenantId, words, MIN_CORRECTION_SIMILARITY],
  );
  return rows.filter((r) => r.meaningful).map((r) => ({ word: r.word, corrections: r.corrections }));
}

interface HitRow {
  chunk_id: string;
  entry_id: string;
  title: string;
  content: string;
  source_url: string | null;
  bot_id: string | null;
  score: number;
}

function searchSql(withVector: boolean): string {
  const allQuery = `CASE WHEN $6 = '' THEN NULL ELSE (${anyLanguage('$6')}) END`;
  const scope = 'c.tenant_id = $1 AND (c.bot_id IS NULL OR c.bot_id = $2)';
  const cosine = `(SELECT sum(a * b) FROM unnest(c.embedding, $9::real[]) AS v(a, b)) / nullif(c.embedding_norm * $10, 0)`;
  const vectorParts = withVector
    ? `, vector_ids AS (
         SELECT c.id FROM knowledge_chunks c
         WHERE ${scope} AND c.embedding IS NOT NULL AND cardinality(c.embedding) = cardinality($9::real[])
         ORDER BY ${cosine} DESC NULLS LAST, c.id
         LIMIT ${VECTOR_CANDIDATES})`
    : '';
  const candidates = withVector
    ? `SELECT c.id FROM knowledge_chunks c WHERE ${scope} AND c.tsv @@ (${allQuery})
       UNION SELECT id FROM vector_ids`
    : `SELECT c.id FROM knowledge_chunks c WHERE ${scope} AND c.tsv @@ (${allQuery})`;
  const vectorScore = withVector
    ? `CASE WHEN c.embedding IS NOT NULL AND cardinality(c.embedding) = cardinality($9::real[])
            THEN greatest(0, ${cosine}) END`
    : 'NULL::double precision';
  return `
    WITH terms AS MATERIALIZED (
      SELECT t.idx, t.weight,
             (${anyLanguage('t.word')}) AS exact,
             CASE WHEN t.alts = '' THEN NULL ELSE (${anyLanguage('t.alts')}) END AS alternative
      FROM unnest($3::text[], $4::text[], $5::real[]) WITH ORDINALITY AS t(word, alts, weight, idx)
    )${vectorParts},
    candidates AS (${candidates}),
    hits AS MATERIALIZED (
      SELECT c.id, c.entry_id, c.bot_id, c.content,
             coalesce(ts_rank_cd(c.tsv, ${allQuery}, 32), 0) AS rank,
             ARRAY(SELECT CASE WHEN c.tsv @@ t.exact THEN 1::real
                               WHEN t.alternative IS NOT NULL AND c.tsv @@ t.alternative THEN t.weight
                               ELSE 0::real END
                   FROM terms t ORDER BY t.idx) AS matched,
             ${vectorScore} AS vector
      FROM knowledge_chunks c JOIN candidates USING (id)
      WHERE ${scope}
    ),
    denominator AS (
      SELECT sum(CASE WHEN EXISTS (SELECT 1 FROM hits h WHERE h.matched[t.idx] > 0) THEN 1::real ELSE $8::real END) AS d
      FROM terms t
    ),
    lexical AS (
      SELECT h.*,
             coalesce(least(1, ${COVERAGE_WEIGHT} * (SELECT sum(x) FROM unnest(h.matched) AS x) / nullif(d.d, 0)
                             + ${1 - COVERAGE_WEIGHT} * h.rank), 0) AS lexical
      FROM hits h CROSS JOIN denominator d
    ),
    scored AS (
      SELECT l.*,
             CASE WHEN l.vector IS NULL THEN l.lexical
                  ELSE greatest(l.lexical, (l.lexical + least(1, l.vector)) / 2) END AS score
      FROM lexical l
    ),
    best AS (
      SELECT DISTINCT ON (s.entry_id) s.* FROM scored s ORDER BY s.entry_id, s.score DESC, s.rank DESC, s.id
    )
    SELECT b.id AS chunk_id, b.entry_id, e.title, b.content, e.source_url, b.bot_id, b.score::float8 AS score
    FROM best b JOIN knowledge_entries e ON e.id = b.entry_id AND e.tenant_id = $1
    WHERE b.score > 0
    ORDER BY b.score DESC, b.rank DESC, b.id
    LIMIT $7`;
}

/**
 * Searches the bot's entries and the tenant-wide entries: full-text search in German, English,
 * French and Italian, typo correction against the tenant's vocabulary (pg_trgm), and, when an
 * embeddings client is given, vector similarity. At most one hit per entry (its best chunk),
 * sorted by score (0..1) descending, cut to `limit`, without hits below `minScore`.
 */
export async function searchKnowledge(
  db: Queryable,
  tenantId: string,
  input: SearchInput,
): Promise<KnowledgeHit[]> {
  if (!isUuid(tenantId) || !isUuid(input.botId)) return [];
  const limit = Math.min(Math.max(Math.trunc(input.limit ?? DEFAULT_SEARCH_LIMIT), 1), MAX_SEARCH_LIMIT);
  const words = queryWords(input.query);
  const terms = words.length > 0 ? await resolveTerms(db, tenantId, words) : [];
  const vector = input.embeddings ? await queryVector(input.embeddings, input.query) : null;
  if (terms.length === 0 && !vector) return [];

  const rows = await db.query<HitRow>(searchSql(vector !== null), [
    tenantId,
    input.botId,
    terms.map((t) => t.word),
    terms.map((t) => t.corrections.map((c) => c.term).join(' | ')),
    terms.map((t) => t.corrections[0]?.similarity ?? 0),
    [...new Set(terms.flatMap((t) => [t.word, ...t.corrections.map((c) => c.term)]))].join(' | '),
    limit,
    UNKNOWN_WORD_WEIGHT,
    ...(vector ? [vector, vectorNorm(vector)] : []),
  ]);
  const minScore = input.minScore ?? 0;
  return rows
    .map((row) => ({
      entryId: row.entry_id,
      chunkId: row.chunk_id,
      title: row.title,
      content: row.content,
      score: Math.round(Math.min(Math.max(row.score, 0), 1) * 10_000) / 10_000,
      sourceUrl: row.source_url,
      botId: row.bot_id,
    }))
    .filter((hit) => hit.score >= minScore);
}

/**
 * The query's vector, or null when the embeddings endpoint fails: a chat must still be
 * answered from full-text search when the vector service is down.
 */
async function queryVector(client: EmbeddingsClient, query: string): Promise<number[] | null> {
  if (query.trim() === '') return null;
  try {
    const [vector] = await client.embed([query.slice(0, 8000)]);
    return vector && vector.length > 0 ? vector : null;
  } catch {
    return null;
  }
}
