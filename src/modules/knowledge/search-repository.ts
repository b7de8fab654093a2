/**
 * The statements of the knowledge search: the resolution of the query's words and the search
 * itself. Both are generated per query shape (number of words, with or without a vector), built
 * once per shape and run with a generic plan; search.ts decides what is searched and scores it.
 */
import { genericPlan, type Queryable } from '../../db/database.js';

/** BM25 parameters: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** BM25F: an occurrence in the title counts this many occurrences in the text. */
const TITLE_WEIGHT = 2;
/**
 * For the ranking value only (it weighs the lexical side of the vector fusion): a query word
 * that no chunk contains weighs this share of the IDF of a word found in a single chunk. The
 * returned score weighs such a word fully (confidence.ts).
 */
const RANK_UNKNOWN_WORD_WEIGHT = 0.25;
/**
 * Compounds: a query word matches, with this credit, the vocabulary words it is made of
 * ("Touristenstrecken" → strecken, touristen) and the vocabulary compounds it is part of
 * ("Eisenbahn" → touristeneisenbahnen); parts have at least MIN_COMPOUND_PART letters.
 */
export const COMPOUND_CREDIT = 0.7;
export const MIN_COMPOUND_PART = 5;
/** The longest parts, and the shortest compounds holding the word, at most this many each. */
const MAX_COMPOUND_MATCHES = 2;
/** Vector candidates of a search. */
const VECTOR_CANDIDATES = 20;
/** Reciprocal rank fusion constant: rank r contributes 1 / (RRF_K + r). */
const RRF_K = 2;

/**
 * Candidate pool: up to CANDIDATE_BUDGET chunks holding every query word, and when there are
 * fewer, up to CANDIDATE_BUDGET / words chunks per word (at least MIN_PER_WORD). A word found in
 * more chunks than that says little about any one of them; the bound keeps a search of a large
 * knowledge base from scoring tens of thousands of chunks.
 */
const CANDIDATE_BUDGET = 120;
const MIN_PER_WORD = 40;
/** A word in more chunks than this is pulled only when the rarer words found too few entries. */
const COMMON_DF = 2000;

/** Distinct lexemes of `expr` in the four indexed languages (stems of each language). */
function lexemesSql(expr: string): string {
  const vectors = ['german', 'english', 'french', 'italian'].map((c) => `to_tsvector('${c}', ${expr})`);
  return `tsvector_to_array(${vectors.join(' || ')})`;
}

/*
 * The words are one parameter each (a VALUES list), not one array: with an array PostgreSQL
 * cannot know how many words there are and plans every execution anew; with a list of known
 * length it reuses one plan per word count. Built once per word count.
 *
 * Per word: its stems, its close spellings and compounds from the vocabulary, and — only when
 * the corpus (the bot's and the tenant-wide entries, knowledge_term_stats) holds none of its
 * stems — which of its split and hyphenated forms the corpus holds, in the query language's
 * stems (see splitForms). A known word's forms are never stemmed (the list is emptied for it), so
 * it costs one index probe; the lookup is part of this statement, not one of its own.
 */
const resolveStatements = new Map<number, string>();
function resolveTermsSql(count: number): string {
  let sql = resolveStatements.get(count);
  if (sql !== undefined) return sql;
  const values = Array.from(
    { length: count },
    (_, i) => `($${5 + 3 * i}::text, ${i}, $${6 + 3 * i}::text[], $${7 + 3 * i}::text[])`,
  );
  const corpus = 's.tenant_id = $1 AND s.scope_id IN ($1, $4::uuid)';
  sql = `SELECT w.word, m.exact, c.alternatives, f.forms
     FROM (VALUES ${values.join(', ')}) AS w(word, idx, parts, splits)
     CROSS JOIN LATERAL (
       SELECT CASE WHEN length(to_tsvector($3::regconfig, w.word)) > 0 THEN ${lexemesSql('w.word')} END AS exact
     ) m
     CROSS JOIN LATERAL (
       SELECT m.exact IS NOT NULL AND cardinality(w.splits) > 0 AND (
         SELECT true FROM unnest(m.exact) AS l(lexeme)
         WHERE (SELECT true FROM knowledge_term_stats s WHERE ${corpus} AND s.lexeme = l.lexeme LIMIT 1)
         LIMIT 1) IS NULL AS unknown
     ) u
     CROSS JOIN LATERAL (
       SELECT coalesce(json_agg(json_build_object('part', x.part, 'lexemes', x.lexemes)), '[]'::json) AS forms
       FROM (
         SELECT x.part, array_agg(DISTINCT l.lexeme) AS lexemes
         FROM unnest(CASE WHEN u.unknown THEN w.splits ELSE ARRAY[]::text[] END) AS x(part)
         CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector($3::regconfig, x.part))) AS l(lexeme)
         WHERE (strpos(x.part, '-') = 0 OR strpos(l.lexeme, '-') > 0)
           -- A probe per lexeme (LIMIT 1: never a hashed scan of the tenant's statistics).
           AND (SELECT true FROM knowledge_term_stats s WHERE ${corpus} AND s.lexeme = l.lexeme LIMIT 1)
         GROUP BY x.part
       ) x
     ) f
     CROSS JOIN LATERAL (
       SELECT coalesce(json_agg(json_build_object('lexeme', l.lexeme, 'credit', x.sim)), '[]'::json) AS alternatives
       FROM (
         (SELECT k.term, similarity(k.term, w.word) AS sim FROM knowledge_terms k
          WHERE m.exact IS NOT NULL AND length(w.word) >= 4 AND k.tenant_id = $1 AND k.term % w.word
            AND NOT EXISTS (SELECT 1 FROM knowledge_terms v WHERE v.tenant_id = $1 AND v.term = w.word)
          ORDER BY sim DESC, k.term LIMIT 3)
         UNION ALL
         (SELECT k.term, ${COMPOUND_CREDIT}::real FROM knowledge_terms k
          WHERE m.exact IS NOT NULL AND k.tenant_id = $1 AND k.term = ANY (w.parts)
          ORDER BY length(k.term) DESC, k.term LIMIT ${MAX_COMPOUND_MATCHES})
         UNION ALL
         (SELECT k.term, ${COMPOUND_CREDIT}::real FROM knowledge_terms k
          WHERE m.exact IS NOT NULL AND length(w.word) >= ${MIN_COMPOUND_PART} AND k.tenant_id = $1
            AND w.word <% k.term AND length(k.term) >= length(w.word) + ${MIN_COMPOUND_PART}
          ORDER BY length(k.term), k.term LIMIT ${MAX_COMPOUND_MATCHES})
       ) x
       CROSS JOIN LATERAL unnest(${lexemesSql('x.term')}) AS l(lexeme)
       WHERE x.sim >= $2
     ) c
     ORDER BY w.idx`;
  sql = genericPlan(sql);
  resolveStatements.set(count, sql);
  return sql;
}

/** A query word as the resolution reads it: the word, its compound parts and its split forms. */
export interface WordToResolve {
  word: string;
  parts: string[];
  splits: string[];
}

export interface ResolvedWordRow {
  word: string;
  exact: string[] | null;
  alternatives: { lexeme: string; credit: number }[];
  forms: { part: string; lexemes: string[] }[];
}

/**
 * Stems of the words in the four indexed languages (null for a stop word of the query's
 * language), their close spellings and compounds from the tenant's vocabulary with at least
 * `minSimilarity`, and the split forms the corpus holds; in the words' order.
 */
export function resolveWords(
  db: Queryable,
  tenantId: string,
  botId: string,
  input: { minSimilarity: number; tsConfig: string; words: WordToResolve[] },
): Promise<ResolvedWordRow[]> {
  return db.query<ResolvedWordRow>(resolveTermsSql(input.words.length), [
    tenantId,
    input.minSimilarity,
    input.tsConfig,
    botId,
    ...input.words.flatMap((w) => [w.word, w.parts, w.splits]),
  ]);
}

export interface HitRow {
  chunk_id: string;
  entry_id: string;
  title: string;
  content: string;
  source_url: string | null;
  source_name: string | null;
  source_page: number | null;
  bot_id: string | null;
  score: number;
  lexical: number;
  bm25: number;
  vector: number | null;
  part_words: number[] | null;
  part_values: number[] | null;
  word_reach: (number | null)[] | null;
  corpus_chunks: number;
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
    sql = genericPlan(searchSql(terms, withVector));
    statements.set(key, sql);
  }
  return sql;
}

/**
 * The search statement for `terms` words. Parameters: $1 tenant, $2 bot, $3 limit, $4 the
 * every-word tsquery, $5 word index, $6 lexeme and $7 credit of every (word, lexeme) pair, $8 the
 * minimum cosine of a semantic hit, then per word its any-lexeme tsquery; with vectors, the last
 * two are the query vector and its norm.
 */
function searchSql(terms: number, withVector: boolean): string {
  const scope = 'c.tenant_id = $1 AND (c.bot_id IS NULL OR c.bot_id = $2)';
  const corpusScope = 'tenant_id = $1 AND scope_id IN ($1, $2)';
  const p = (word: number) => `$${9 + word}`;
  const vec = `$${9 + terms}`;
  const norm = `$${10 + terms}`;
  const cosine = `(SELECT sum(a * b) FROM unnest(c.embedding, ${vec}::real[]) AS v(a, b)) / nullif(c.embedding_norm * ${norm}, 0)`;
  const range = [...Array(terms).keys()];
  const pull = (name: string, match: string, gate: string) =>
    `${name} AS MATERIALIZED (SELECT c.id, c.entry_id FROM knowledge_chunks c WHERE ${scope} AND c.tsv @@ ${match}${gate})`;
  // Each pull is its own CTE, read lazily: the bound below stops it after that many rows, while
  // the planner still picks the index for rare words (a LIMIT inside would tempt it into a
  // sequential scan that reads the whole table for a rare word). A word's pull is gated by its
  // document frequency (a gate without a column of the table is checked once, before any scan):
  // a GIN index answers only with the bitmap of every matching chunk, so the pull of a word in
  // tens of thousands of chunks costs milliseconds for a few dozen arbitrary chunks. Such a
  // word's pull runs only when the other pulls found too few entries.
  const wordDf = (i: number) => `(SELECT coalesce(sum(q.df), 0) FROM q WHERE q.word = ${i})`;
  const pulls = range.map((i) => pull(`rare${i}`, `${p(i)}::tsquery`, ` AND ${wordDf(i)} <= ${COMMON_DF}`));
  if (terms > 1) pulls.push(pull('every', '$4::tsquery', ''));
  // A chunk holding every word outranks nearly every chunk that lacks one, so when such
  // chunks cover enough entries the single-word pulls would add nothing but work.
  const perWord = Math.max(MIN_PER_WORD, Math.floor(CANDIDATE_BUDGET / Math.max(terms, 1)));
  const wordLimit =
    terms > 1
      ? `(SELECT CASE WHEN count(DISTINCT z.entry_id) >= $3 THEN 0 ELSE ${perWord} END
          FROM (SELECT entry_id FROM every LIMIT ${CANDIDATE_BUDGET}) AS z)`
      : `${perWord}`;
  const found = [
    ...(terms > 1 ? [`(SELECT entry_id FROM every LIMIT ${CANDIDATE_BUDGET})`] : []),
    ...range.map((i) => `(SELECT entry_id FROM rare${i} LIMIT ${wordLimit})`),
  ];
  pulls.push(
    `enough AS MATERIALIZED (SELECT count(DISTINCT f.entry_id) >= $3 AS yes FROM (${found.join(' UNION ALL ')}) AS f)`,
  );
  pulls.push(
    ...range.map((i) =>
      pull(
        `common${i}`,
        `${p(i)}::tsquery`,
        ` AND ${wordDf(i)} > ${COMMON_DF} AND NOT (SELECT yes FROM enough)`,
      ),
    ),
  );
  const bounded = [
    ...(terms > 1 ? [`(SELECT id FROM every LIMIT ${CANDIDATE_BUDGET})`] : []),
    ...range.map((i) => `(SELECT id FROM rare${i} LIMIT ${wordLimit})`),
    ...range.map((i) => `(SELECT id FROM common${i} LIMIT ${wordLimit})`),
  ];
  if (withVector) {
    bounded.push(`(SELECT c.id FROM knowledge_chunks c
       WHERE ${scope} AND c.embedding IS NOT NULL AND cardinality(c.embedding) = cardinality(${vec}::real[])
       ORDER BY ${cosine} DESC NULLS LAST, c.id LIMIT ${VECTOR_CANDIDATES})`);
  }
  // Every parameter is named once with its type, so unused ones bind.
  const typed = ['$4::tsquery', '$5::int[]', '$6::text[]', '$7::real[]', '$8::real']
    .concat(range.map((i) => `${p(i)}::tsquery`))
    .join(', ');
  const vectorScore = withVector
    ? `CASE WHEN c.embedding IS NOT NULL AND cardinality(c.embedding) = cardinality(${vec}::real[])
            THEN ${cosine} END`
    : 'NULL::double precision';
  // The chunk's vector cut to the query's lexemes, in C: the lexemes that are not the query's
  // are deleted (unnesting the whole vector row by row cost about three times as much).
  const queryLexemesOf = (tsv: string) =>
    `ts_delete(${tsv}, tsvector_to_array(ts_delete(${tsv}, $6::text[])))`;
  // BM25F: title occurrences (weight A) count TITLE_WEIGHT times, text (B) and code forms (C) once.
  const tf = `(cardinality(u.positions) + ${TITLE_WEIGHT - 1} * cardinality(array_positions(u.weights, 'A')))::float8`;
  return `
    WITH typed AS (SELECT ${typed}),
    corpus AS MATERIALIZED (
      SELECT greatest(coalesce(sum(chunks), 0), 1)::float8 AS n,
             greatest(coalesce(sum(total_length)::float8 / nullif(sum(chunks), 0), 1), 1) AS avgdl
      FROM knowledge_corpus_stats WHERE ${corpusScope}
    ),
    q AS MATERIALIZED (
      SELECT q.word, q.lexeme, q.credit, coalesce(d.df, 0) AS df,
             ln(1 + (o.n - coalesce(d.df, 0) + 0.5) / (coalesce(d.df, 0) + 0.5)) AS idf
      FROM unnest($5::int[], $6::text[], $7::real[]) AS q(word, lexeme, credit)
      CROSS JOIN corpus o
      LEFT JOIN LATERAL (SELECT sum(chunks)::float8 AS df FROM knowledge_term_stats
                         WHERE ${corpusScope} AND lexeme = q.lexeme) d ON true
    ),
    ${pulls.map((pull) => `${pull},`).join('\n    ')}
    candidates AS MATERIALIZED (
      SELECT coalesce(array_agg(DISTINCT x.id), ARRAY[]::uuid[]) AS ids
      FROM (${bounded.join('\n UNION ALL ')}) AS x
    ),
    -- The most a word can add: the IDF of its rarest lexeme in the corpus (credit 1), else the
    -- best a close spelling can give, else (no chunk holds it) NULL. The ranking value below
    -- counts an unknown word with a share of a one-chunk word's IDF; the returned score is
    -- computed from the per-word figures in confidence.ts.
    -- For the score, a word found only through a close spelling or compound part reaches the
    -- IDF of that lexeme without its credit, so the chunk covers the word only by that credit.
    reach_words AS MATERIALIZED (
      SELECT q.word,
             coalesce(max(q.idf) FILTER (WHERE q.df > 0 AND q.credit >= 1),
                      max(q.idf * q.credit) FILTER (WHERE q.df > 0)) AS best,
             coalesce(max(q.idf) FILTER (WHERE q.df > 0 AND q.credit >= 1),
                      max(q.idf) FILTER (WHERE q.df > 0)) AS full
      FROM q GROUP BY q.word
    ),
    reach AS (
      SELECT coalesce(sum(coalesce(w.best, ${RANK_UNKNOWN_WORD_WEIGHT} * ln(1 + (o.n - 0.5) / 1.5))), 0) AS total,
             array_agg(w.full::float8 ORDER BY w.word) AS words, max(o.n) AS n
      FROM reach_words w CROSS JOIN corpus o
    ),
    hits AS MATERIALIZED (
      SELECT c.id, c.entry_id, c.bot_id, c.content, c.tsv, c.doc_length, ${vectorScore} AS vector
      FROM knowledge_chunks c
      WHERE c.id = ANY ((SELECT ids FROM candidates)::uuid[]) AND ${scope}
    ),
    parts AS (
      SELECT h.id, q.word,
             max(q.credit * q.idf * t.tf * ${K1 + 1} / (t.tf + ${K1} * (${1 - B} + ${B} * h.doc_length / o.avgdl))) AS part
      FROM hits h CROSS JOIN corpus o
      CROSS JOIN LATERAL (SELECT u.lexeme, ${tf} AS tf FROM unnest(${queryLexemesOf('h.tsv')}) AS u) t
      JOIN q ON q.lexeme = t.lexeme
      GROUP BY h.id, q.word
    ),
    bm25 AS (
      SELECT id, sum(part) AS bm25, array_agg(word) AS part_words, array_agg(part::float8) AS part_values
      FROM parts GROUP BY id
    ),
    scored AS (
      SELECT h.id, h.entry_id, h.bot_id, h.content, coalesce(b.bm25, 0) AS bm25, h.vector,
             least(1, coalesce(b.bm25, 0) / nullif(r.total, 0)) AS lexical,
             b.part_words, b.part_values
      FROM hits h LEFT JOIN bm25 b ON b.id = h.id CROSS JOIN reach r
    ),
    -- Reciprocal rank fusion of the lexical and the vector ranking, scaled so that first place
    -- in both gives 1 and first place among the vectors alone 0.5; a lexical place counts with
    -- the lexical score, so fusion never lifts a weak word match by its rank alone.
    ranked AS (
      SELECT s.*,
             CASE WHEN s.bm25 > 0 THEN rank() OVER (ORDER BY s.bm25 DESC) END AS lexical_rank,
             CASE WHEN s.vector >= $8 THEN rank() OVER (ORDER BY s.vector DESC NULLS LAST) END AS vector_rank
      FROM scored s
    ),
    fused AS (
      SELECT r.*, ${
        withVector
          ? `greatest(coalesce(r.lexical, 0),
                      least(1, ${(RRF_K + 1) / 2} * (coalesce(r.lexical / (${RRF_K} + r.lexical_rank), 0)
                                                     + coalesce(1.0 / (${RRF_K} + r.vector_rank), 0))))`
          : 'r.lexical'
      } AS score
      FROM ranked r
    ),
    best AS (
      SELECT DISTINCT ON (f.entry_id) f.* FROM fused f ORDER BY f.entry_id, f.score DESC, f.bm25 DESC, f.id
    ),
    top AS (
      SELECT * FROM best b WHERE b.score > 0 ORDER BY b.score DESC, b.bm25 DESC, b.id LIMIT $3
    )
    SELECT b.id AS chunk_id, b.entry_id, e.title, b.content, e.source_url, e.source_name, e.source_page, b.bot_id,
           b.score::float8 AS score, b.lexical::float8 AS lexical, b.bm25::float8 AS bm25,
           b.vector::float8 AS vector, b.part_words, b.part_values, r.words AS word_reach, r.n::float8 AS corpus_chunks
    FROM top b JOIN knowledge_entries e ON e.id = b.entry_id AND e.tenant_id = $1 CROSS JOIN reach r
    ORDER BY b.score DESC, b.bm25 DESC, b.id`;
}

/** What the search statement is given besides tenant and bot. */
export interface SearchStatementInput {
  limit: number;
  /** The tsquery of chunks holding every word (null without words). */
  everyWord: string | null;
  /** Every (word index, lexeme, credit) pair of the resolved words. */
  pairs: { word: number; lexeme: string; credit: number }[];
  /** The cosine similarity a chunk needs to count as a semantic hit. */
  minCosine: number;
  /** Per word, the tsquery of any of its lexemes. */
  wordQueries: string[];
  /** The query's vector and its norm, or null for a full-text search. */
  vector: { values: number[]; norm: number } | null;
}

/** The best chunk of each entry found, best first, at most `limit`. */
export function searchChunks(
  db: Queryable,
  tenantId: string,
  botId: string,
  input: SearchStatementInput,
): Promise<HitRow[]> {
  return db.query<HitRow>(cachedSearchSql(input.wordQueries.length, input.vector !== null), [
    tenantId,
    botId,
    input.limit,
    input.everyWord,
    input.pairs.map((x) => x.word),
    input.pairs.map((x) => x.lexeme),
    input.pairs.map((x) => x.credit),
    input.minCosine,
    ...input.wordQueries,
    ...(input.vector ? [input.vector.values, input.vector.norm] : []),
  ]);
}
