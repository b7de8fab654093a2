import { LRUCache } from 'lru-cache';
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
  /**
   * The tenant's current knowledge_vocabulary_version. When given, resolved query words are
   * cached under it (the chat reads it with the bot at no extra cost); without it every word is
   * resolved in the database.
   */
  vocabularyVersion?: number;
}

export const DEFAULT_SEARCH_LIMIT = 3;
export const MAX_SEARCH_LIMIT = 50;

/** Share of the score given by how many query words a chunk contains (the rest is ts_rank). */
const COVERAGE_WEIGHT = 0.85;
/** A query word that no candidate contains counts half: it cannot tell chunks apart, but a
 *  question full of unknown words is less likely answered by a chunk that matches one word. */
const UNKNOWN_WORD_WEIGHT = 0.5;
/** Lowest trigram similarity at which a vocabulary word counts as the intended spelling. */
const MIN_CORRECTION_SIMILARITY = 0.5;
const VECTOR_CANDIDATES = 20;

/**
 * A tsquery (text form) matching any stem of the words in `expr` in the four indexed languages,
 * each distinct stem once (a stem repeated in the query would make GIN read its list again).
 * Stems of letter-and-digit words hold no quote or backslash, so quote_literal gives valid tsquery text.
 */
function anyLanguage(expr: string): string {
  const vectors = ['german', 'english', 'french', 'italian'].map((c) => `to_tsvector('${c}', ${expr})`);
  return `(SELECT string_agg(quote_literal(l), ' | ') FROM unnest(tsvector_to_array(${vectors.join(' || ')})) AS l)`;
}

/**
 * Candidate pool: up to CANDIDATE_BUDGET chunks holding every query word, and when there are
 * fewer, up to CANDIDATE_BUDGET / words chunks per word (at least MIN_PER_WORD). A word found in
 * more chunks than that says little about any one of them; the bound keeps a search of a large
 * knowledge base from scoring tens of thousands of chunks.
 */
const CANDIDATE_BUDGET = 240;
const MIN_PER_WORD = 60;

interface ResolvedTerm {
  word: string;
  /** tsquery (text form) of the word's stems in the four languages. */
  exact: string;
  /** tsquery of close vocabulary spellings (typo tolerance), or null. */
  alternative: string | null;
  /** Trigram similarity of the best close spelling: the credit for matching only through it. */
  weight: number;
}

/*
 * The words are one parameter each (a VALUES list), not one array: with an array PostgreSQL
 * cannot know how many words there are and plans every execution anew; with a list of known
 * length it reuses one plan per word count. Built once per word count.
 */
const resolveStatements = new Map<number, string>();
function resolveTermsSql(count: number): string {
  let sql = resolveStatements.get(count);
  if (sql !== undefined) return sql;
  const values = Array.from({ length: count }, (_, i) => `($${i + 3}::text, ${i})`).join(', ');
  sql = `SELECT w.word, m.meaningful,
            CASE WHEN m.meaningful THEN ${anyLanguage('w.word')} END AS exact,
            CASE WHEN m.meaningful AND c.alts IS NOT NULL THEN ${anyLanguage('c.alts')} END AS alternative,
            coalesce(c.weight, 0)::float8 AS weight
     FROM (VALUES ${values}) AS w(word, idx)
     CROSS JOIN LATERAL (
       SELECT length(to_tsvector('german', w.word)) > 0 AND length(to_tsvector('english', w.word)) > 0
          AND length(to_tsvector('french', w.word)) > 0 AND length(to_tsvector('italian', w.word)) > 0 AS meaningful
     ) m
     CROSS JOIN LATERAL (
       SELECT string_agg(x.term, ' | ') AS alts, max(x.sim) AS weight
       FROM (SELECT k.term, similarity(k.term, w.word) AS sim FROM knowledge_terms k
             WHERE m.meaningful AND length(w.word) >= 4 AND k.tenant_id = $1 AND k.term % w.word
               AND NOT EXISTS (SELECT 1 FROM knowledge_terms v WHERE v.tenant_id = $1 AND v.term = w.word)
             ORDER BY sim DESC, k.term LIMIT 3) x
       WHERE x.sim >= $2
     ) c
     ORDER BY w.idx`;
  resolveStatements.set(count, sql);
  return sql;
}

/** A word that is a stop word in one of the four languages: it takes no part in the search. */
const STOP_WORD = { stop: true } as const;
type Resolution = ResolvedTerm | typeof STOP_WORD;

/**
 * Keeps the query words that are no stop word in any of the four languages, looks up close
 * spellings in the tenant's vocabulary for words it does not hold verbatim, and turns both into
 * tsqueries once, so the search itself compares against constants.
 */
async function resolveInDatabase(
  db: Queryable,
  tenantId: string,
  words: string[],
): Promise<Map<string, Resolution>> {
  const rows = await db.query<ResolvedTerm & { meaningful: boolean }>(resolveTermsSql(words.length), [
    tenantId,
    MIN_CORRECTION_SIMILARITY,
    ...words,
  ]);
  const resolved = new Map<string, Resolution>(words.map((word) => [word, STOP_WORD]));
  for (const r of rows) {
    if (r.meaningful && r.exact) {
      resolved.set(r.word, {
        word: r.word,
        exact: r.exact,
        alternative: r.alternative || null,
        weight: r.weight,
      });
    }
  }
  return resolved;
}

/*
 * Resolved words per tenant and vocabulary version. A resolution depends only on the tenant's
 * vocabulary and PostgreSQL's dictionaries, so an entry stays right until the version grows;
 * old versions' entries simply age out of the LRU.
 */
const resolvedWords = new LRUCache<string, Resolution>({ max: 20_000 });

/** The query's meaningful words, resolved; from the cache when the vocabulary version is known. */
async function resolveTerms(
  db: Queryable,
  tenantId: string,
  words: string[],
  version: number | undefined,
): Promise<ResolvedTerm[]> {
  const key = (word: string) => `${tenantId}|${version}|${word}`;
  const known = new Map<string, Resolution | undefined>(
    words.map((word) => [word, version === undefined ? undefined : resolvedWords.get(key(word))]),
  );
  const missing = words.filter((word) => known.get(word) === undefined);
  if (missing.length > 0) {
    for (const [word, resolution] of await resolveInDatabase(db, tenantId, missing)) {
      if (version !== undefined) resolvedWords.set(key(word), resolution);
      known.set(word, resolution);
    }
  }
  return words
    .map((word) => known.get(word))
    .filter((term): term is ResolvedTerm => term !== undefined && term !== STOP_WORD);
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

/** The query of one word: its stems, or one of its close spellings. */
function wordQuery(term: ResolvedTerm): string {
  return term.alternative ? `(${term.exact}) | (${term.alternative})` : term.exact;
}

/*
 * The statement depends only on the number of words and whether a vector is used (at most
 * 2 × 16 shapes), so each is built once and stays one prepared statement per connection.
 */
const statements = new Map<string, string>();
function cachedSearchSql(terms: number, withVector: boolean): string {
  const key = `${terms}|${withVector}`;
  let sql = statements.get(key);
  if (sql === undefined) {
    sql = searchSql(terms, withVector);
    statements.set(key, sql);
  }
  return sql;
}

/**
 * The search statement for `terms` words. Parameters: $1 tenant, $2 bot, $3 limit, $4 weight
 * of an unknown word, $5 the any-word tsquery, $6 the every-word tsquery, then per word its
 * query, exact query, alternative query (null without a close spelling: it then matches
 * nothing) and alternative credit; with vectors, the last two are the query vector and its norm.
 */
function searchSql(terms: number, withVector: boolean): string {
  const scope = 'c.tenant_id = $1 AND (c.bot_id IS NULL OR c.bot_id = $2)';
  const p = (word: number, part: number) => `$${7 + word * 4 + part}`;
  const vec = `$${7 + terms * 4}`;
  const norm = `$${8 + terms * 4}`;
  const cosine = `(SELECT sum(a * b) FROM unnest(c.embedding, ${vec}::real[]) AS v(a, b)) / nullif(c.embedding_norm * ${norm}, 0)`;
  const range = [...Array(terms).keys()];
  // Each pull is its own CTE, read lazily: the bound below stops it after that many rows, while
  // the planner still picks the index for rare words (a LIMIT inside would tempt it into a
  // sequential scan that reads the whole table for a rare word).
  const pulls = range.map(
    (i) =>
      `pull${i} AS MATERIALIZED (SELECT c.id, c.entry_id FROM knowledge_chunks c WHERE ${scope} AND c.tsv @@ ${p(i, 0)}::tsquery)`,
  );
  if (terms > 1) {
    pulls.push(
      `pull${terms} AS MATERIALIZED (SELECT c.id, c.entry_id FROM knowledge_chunks c WHERE ${scope} AND c.tsv @@ $6::tsquery)`,
    );
  }
  // A chunk holding every word outranks every chunk that lacks one (coverage), so when such
  // chunks cover enough entries the single-word pulls would add nothing but work.
  const perWord = Math.max(MIN_PER_WORD, Math.floor(CANDIDATE_BUDGET / Math.max(terms, 1)));
  const wordLimit =
    terms > 1
      ? `(SELECT CASE WHEN count(DISTINCT z.entry_id) >= $3 THEN 0 ELSE ${perWord} END
          FROM (SELECT entry_id FROM pull${terms} LIMIT ${CANDIDATE_BUDGET}) AS z)`
      : `${perWord}`;
  const bounded = pulls.map(
    (_, i) => `(SELECT id FROM pull${i} LIMIT ${i === terms ? CANDIDATE_BUDGET : wordLimit})`,
  );
  if (withVector) {
    bounded.push(`(SELECT c.id FROM knowledge_chunks c
       WHERE ${scope} AND c.embedding IS NOT NULL AND cardinality(c.embedding) = cardinality(${vec}::real[])
       ORDER BY ${cosine} DESC NULLS LAST, c.id LIMIT ${VECTOR_CANDIDATES})`);
  }
  const matched = range.map(
    (i) => `CASE WHEN c.tsv @@ ${p(i, 1)}::tsquery THEN 1::real
              WHEN c.tsv @@ ${p(i, 2)}::tsquery THEN ${p(i, 3)}::real ELSE 0::real END AS m${i}`,
  );
  // Every parameter is named once with its type, so unused ones (no alternative spelling) bind.
  const typed = ['$4::real', '$5::tsquery', '$6::tsquery']
    .concat(
      range.flatMap((i) =>
        [p(i, 0), p(i, 1), p(i, 2)].map((x) => `${x}::tsquery`).concat(`${p(i, 3)}::real`),
      ),
    )
    .join(', ');
  const known = range.map((i) => `CASE WHEN bool_or(h.m${i} > 0) THEN 1::real ELSE $4::real END`);
  const vectorScore = withVector
    ? `CASE WHEN c.embedding IS NOT NULL AND cardinality(c.embedding) = cardinality(${vec}::real[])
            THEN greatest(0, ${cosine}) END`
    : 'NULL::double precision';
  return `
    WITH typed AS (SELECT ${typed}),
    ${pulls.map((pull) => `${pull},`).join('\n    ')}
    candidates AS MATERIALIZED (
      SELECT coalesce(array_agg(DISTINCT x.id), ARRAY[]::uuid[]) AS ids
      FROM (${bounded.join('\n UNION ALL ')}) AS x
    ),
    hits AS MATERIALIZED (
      SELECT c.id, c.entry_id, c.bot_id, c.content,
             ${terms > 0 ? 'ts_rank(c.tsv, $5::tsquery, 32)' : '0'} AS rank,
             ${[...matched, `${vectorScore} AS vector`].join(',\n             ')}
      FROM knowledge_chunks c
      WHERE c.id = ANY ((SELECT ids FROM candidates)::uuid[]) AND ${scope}
    ),
    denominator AS (SELECT ${terms > 0 ? known.join(' + ') : '0::real'} AS d FROM hits h),
    scored AS (
      SELECT h.id, h.entry_id, h.bot_id, h.content, h.rank, h.vector,
             coalesce(least(1, ${COVERAGE_WEIGHT} * (${terms > 0 ? range.map((i) => `h.m${i}`).join(' + ') : '0'}) / nullif(d.d, 0)
                             + ${(1 - COVERAGE_WEIGHT).toFixed(2)} * h.rank), 0) AS lexical
      FROM hits h CROSS JOIN denominator d
    ),
    fused AS (
      SELECT s.*, CASE WHEN s.vector IS NULL THEN s.lexical
                       ELSE greatest(s.lexical, (s.lexical + least(1, s.vector)) / 2) END AS score
      FROM scored s
    ),
    best AS (
      SELECT DISTINCT ON (f.entry_id) f.* FROM fused f ORDER BY f.entry_id, f.score DESC, f.rank DESC, f.id
    ),
    top AS (
      SELECT * FROM best b WHERE b.score > 0 ORDER BY b.score DESC, b.rank DESC, b.id LIMIT $3
    )
    SELECT b.id AS chunk_id, b.entry_id, e.title, b.content, e.source_url, b.bot_id, b.score::float8 AS score
    FROM top b JOIN knowledge_entries e ON e.id = b.entry_id AND e.tenant_id = $1
    ORDER BY b.score DESC, b.rank DESC, b.id`;
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
  const terms = words.length > 0 ? await resolveTerms(db, tenantId, words, input.vocabularyVersion) : [];
  const vector = input.embeddings ? await queryVector(input.embeddings, input.query) : null;
  if (terms.length === 0 && !vector) return [];

  const queries = terms.map(wordQuery);
  const rows = await db.query<HitRow>(cachedSearchSql(terms.length, vector !== null), [
    tenantId,
    input.botId,
    limit,
    UNKNOWN_WORD_WEIGHT,
    queries.map((q) => `(${q})`).join(' | ') || null,
    queries.map((q) => `(${q})`).join(' & ') || null,
    ...terms.flatMap((t, i) => [queries[i], t.exact, t.alternative, t.weight]),
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
