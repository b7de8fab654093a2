import { LRUCache } from 'lru-cache';
import { cacheLookups } from '../../observability/metrics.js';
import { genericPlan, type Queryable } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';
import { vectorNorm, type EmbeddingsClient } from './embeddings.js';
import { detectLanguage as detectQueryLanguage } from '../../shared/language.js';
import {
  compoundParts,
  decompound,
  knownTail,
  MAX_QUERY_WORDS,
  queryWords,
  splitCandidates,
  TS_CONFIG,
  type Language,
} from './text.js';
import { confidence, questionTopicWeights, type HitEvidence, type QueryWord } from './confidence.js';

export interface KnowledgeHit {
  entryId: string;
  chunkId: string;
  title: string;
  content: string;
  /** 0..1, see docs/knowledge.md "Scores". */
  score: number;
  sourceUrl: string | null;
  /** File name and PDF page of an imported entry (null otherwise). */
  sourceName?: string | null;
  sourcePage?: number | null;
  /** null for a tenant-wide entry. */
  botId: string | null;
  /** What the score was computed from; the answerability decision reads it. */
  evidence?: HitEvidence;
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
/** Lowest trigram similarity at which a vocabulary word counts as the intended spelling. */
const MIN_CORRECTION_SIMILARITY = 0.5;
/**
 * Compounds: a query word matches, with this credit, the vocabulary words it is made of
 * ("Touristenstrecken" → strecken, touristen) and the vocabulary compounds it is part of
 * ("Eisenbahn" → touristeneisenbahnen); parts have at least MIN_COMPOUND_PART letters.
 */
const COMPOUND_CREDIT = 0.7;
const MIN_COMPOUND_PART = 5;
/** The longest parts, and the shortest compounds holding the word, at most this many each. */
const MAX_COMPOUND_MATCHES = 2;
/** Vector candidates, and the cosine similarity a chunk needs to count as a semantic hit. */
const VECTOR_CANDIDATES = 20;
const VECTOR_MIN_COSINE = 0.3;
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

interface ResolvedTerm {
  word: string;
  /** Lexemes of the word in the four indexed languages; each matches with credit 1. */
  exact: string[];
  /** Lexemes of close vocabulary spellings (typos, names) with their trigram similarity as credit. */
  alternatives: { lexeme: string; credit: number }[];
  /**
   * A word the corpus does not hold, searched as the corpus's words it is made of
   * ("hochzeitssaal" → hochzeit, saal; "daypass" → day, pass): each part is a word of its own.
   */
  parts?: ResolvedTerm[];
  /** For a part: the query word it comes from (its topic weight is the word's). */
  source?: string;
}

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

/** The split, hyphenated and derived forms of a word that the corpus may hold instead of it. */
function splitForms(word: string): string[] {
  const { parts, hyphenated, derived } = splitCandidates(word);
  return [...parts, ...hyphenated, ...derived];
}

/** A stop word of the query's language: it takes no part in the search. */
const STOP_WORD = { stop: true } as const;
type Resolution = ResolvedTerm | typeof STOP_WORD;

/**
 * Drops the stop words of the query's language (a word that is a stop word only in another
 * language stays), stems the others in the four indexed languages, and looks up close spellings
 * in the tenant's vocabulary for words it does not hold verbatim.
 */
async function resolveInDatabase(
  db: Queryable,
  tenantId: string,
  botId: string,
  language: Language,
  words: string[],
  split = true,
): Promise<Map<string, Resolution>> {
  const rows = await db.query<{
    word: string;
    exact: string[] | null;
    alternatives: { lexeme: string; credit: number }[];
    forms: { part: string; lexemes: string[] }[];
  }>(resolveTermsSql(words.length), [
    tenantId,
    MIN_CORRECTION_SIMILARITY,
    TS_CONFIG[language],
    botId,
    ...words.flatMap((word) => [word, compoundParts(word, MIN_COMPOUND_PART), split ? splitForms(word) : []]),
  ]);
  const resolved = new Map<string, Resolution>(words.map((word) => [word, STOP_WORD]));
  const forms = new Map<ResolvedTerm, Map<string, string[]>>();
  for (const r of rows) {
    if (r.exact && r.exact.length > 0) {
      const exact = new Set(r.exact);
      const alternatives = new Map<string, number>();
      for (const a of r.alternatives) {
        if (!exact.has(a.lexeme))
          alternatives.set(a.lexeme, Math.max(alternatives.get(a.lexeme) ?? 0, a.credit));
      }
      const term: ResolvedTerm = {
        word: r.word,
        exact: [...exact],
        alternatives: [...alternatives].map(([lexeme, credit]) => ({ lexeme, credit })),
      };
      resolved.set(r.word, term);
      if (r.forms.length > 0) forms.set(term, new Map(r.forms.map((f) => [f.part, f.lexemes])));
    }
  }
  if (!split) return resolved;
  for (const [term, known] of forms) applySplitForms(term, known);
  // The parts are searched like words: with their close spellings and the compounds holding them
  // ("stunde" in "Stundensatz").
  const parts = [...resolved.values()].flatMap((r) => ('parts' in r && r.parts ? r.parts : []));
  const partWords = [...new Set(parts.map((part) => part.word))].slice(0, MAX_QUERY_WORDS);
  if (partWords.length > 0) {
    const own = await resolveInDatabase(db, tenantId, botId, language, partWords, false);
    for (const part of parts) {
      const found = own.get(part.word);
      if (found === undefined || !('word' in found)) continue;
      part.exact = [...new Set([...part.exact, ...found.exact])];
      part.alternatives = found.alternatives.filter((a) => !part.exact.includes(a.lexeme));
    }
  }
  return resolved;
}

/**
 * A word the corpus lacks but holds hyphenated ("wifi" → wi-fi) is searched in that form too; a
 * word the corpus lacks but holds as the words it is made of (text.ts decompound) is searched as
 * those words. `parts` are the word's forms the corpus holds, with their lexemes.
 */
function applySplitForms(term: ResolvedTerm, parts: Map<string, string[]>): void {
  const hyphenated = [...parts].filter(([part]) => part.includes('-')).flatMap(([, lexemes]) => lexemes);
  if (hyphenated.length > 0) {
    term.exact = [...new Set([...term.exact, ...hyphenated])];
    return;
  }
  const split = decompound(term.word, (part) => parts.has(part));
  if (split.length > 0) {
    term.parts = split.map((part) => ({
      word: part,
      exact: parts.get(part)!,
      alternatives: [],
      source: term.word,
    }));
    return;
  }
  // A part of the word, or the verb of a noun: close, not the same (credit as a compound part).
  const { derived } = splitCandidates(term.word);
  const close = [...derived, knownTail(term.word, (part) => parts.has(part))]
    .filter((form): form is string => form !== undefined && parts.has(form))
    .flatMap((form) => parts.get(form)!);
  const alternatives = new Map(term.alternatives.map((a) => [a.lexeme, a.credit]));
  for (const lexeme of close) {
    if (!term.exact.includes(lexeme))
      alternatives.set(lexeme, Math.max(alternatives.get(lexeme) ?? 0, COMPOUND_CREDIT));
  }
  term.alternatives = [...alternatives].map(([lexeme, credit]) => ({ lexeme, credit }));
}

/*
 * Resolved words per tenant, vocabulary version and query language. A resolution depends only
 * on these and PostgreSQL's dictionaries, so an entry stays right until the version grows; old
 * versions' entries simply age out of the LRU.
 */
const resolvedWords = new LRUCache<string, Resolution>({
  // Bounded by bytes (UTF-16 string lengths plus object overhead), not entries: about 8 MB.
  // The fixed parts (the object, its arrays and the LRU's bookkeeping per entry) are what a
  // heap snapshot after 50,000 chats showed: with smaller ones the cache held 13.4 MB.
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (value, key) =>
    2 * key.length +
    ('word' in value
      ? 2 * value.word.length +
        value.exact.reduce((sum, lexeme) => sum + 2 * lexeme.length + 32, 0) +
        value.alternatives.reduce((sum, a) => sum + 2 * a.lexeme.length + 80, 0) +
        (value.parts ?? []).reduce(
          (sum, p) =>
            sum + 2 * p.word.length + p.exact.reduce((n, lexeme) => n + 2 * lexeme.length + 32, 0) + 200,
          0,
        ) +
        400
      : 120),
});

/** The query's meaningful words, resolved; from the cache when the vocabulary version is known. */
async function resolveTerms(
  db: Queryable,
  tenantId: string,
  botId: string,
  language: Language,
  words: string[],
  version: number | undefined,
): Promise<ResolvedTerm[]> {
  const key = (word: string) => `${tenantId}|${botId}|${version}|${language}|${word}`;
  const known = new Map<string, Resolution | undefined>(
    words.map((word) => [word, version === undefined ? undefined : resolvedWords.get(key(word))]),
  );
  const missing = words.filter((word) => known.get(word) === undefined);
  cacheLookups.inc({ cache: 'knowledge_words', result: 'hit' }, words.length - missing.length);
  cacheLookups.inc({ cache: 'knowledge_words', result: 'miss' }, missing.length);
  if (missing.length > 0) {
    for (const [word, resolution] of await resolveInDatabase(db, tenantId, botId, language, missing)) {
      if (version !== undefined) resolvedWords.set(key(word), resolution);
      known.set(word, resolution);
    }
  }
  const terms = words
    .map((word) => known.get(word))
    .filter((term): term is ResolvedTerm => term !== undefined && term !== STOP_WORD);
  // A split word is searched as its parts, each once (a part the query names itself is not repeated).
  const searched = new Set(terms.map((t) => t.word));
  return terms.flatMap((term) =>
    term.parts
      ? term.parts.filter((part) => {
          if (searched.has(part.word)) return false;
          searched.add(part.word);
          return true;
        })
      : [term],
  );
}

interface HitRow {
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

/** A lexeme as a tsquery operand (lexemes of letter/digit words hold no quote, but be safe). */
function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The query of one word: any of its stems or of its close spellings. */
function wordQuery(term: ResolvedTerm): string {
  return [...term.exact, ...term.alternatives.map((a) => a.lexeme)].map(quoteLexeme).join(' | ');
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

/**
 * Searches the bot's entries and the tenant-wide entries: BM25F over title and text with the
 * corpus statistics of exactly these entries, stems in German, English, French and Italian,
 * typo correction against the tenant's vocabulary (pg_trgm), and, when an embeddings client is
 * given, vector similarity fused by rank. At most one hit per entry (its best chunk), sorted by
 * score (0..1, see docs/knowledge.md) descending, cut to `limit`, without hits below `minScore`.
 */
export async function searchKnowledge(
  db: Queryable,
  tenantId: string,
  input: SearchInput,
): Promise<KnowledgeHit[]> {
  return (await searchWithEvidence(db, tenantId, input)).hits;
}

/** The search's hits together with the query's words as the score saw them. */
export interface SearchResult {
  hits: KnowledgeHit[];
  /** The query's searched words (stop words dropped), with their weight in this corpus. */
  words: QueryWord[];
}

/** searchKnowledge, also returning the per-word evidence behind each score. */
export async function searchWithEvidence(
  db: Queryable,
  tenantId: string,
  input: SearchInput,
): Promise<SearchResult> {
  if (!isUuid(tenantId) || !isUuid(input.botId)) return { hits: [], words: [] };
  const limit = Math.min(Math.max(Math.trunc(input.limit ?? DEFAULT_SEARCH_LIMIT), 1), MAX_SEARCH_LIMIT);
  const words = queryWords(input.query);
  const language = detectQueryLanguage(input.query);
  const terms =
    words.length > 0
      ? await resolveTerms(db, tenantId, input.botId, language, words, input.vocabularyVersion)
      : [];
  const vector = input.embeddings ? await queryVector(input.embeddings, input.query) : null;
  if (terms.length === 0 && !vector) return { hits: [], words: [] };

  const pairs = terms.flatMap((t, i) => [
    ...t.exact.map((lexeme) => ({ word: i, lexeme, credit: 1 })),
    ...t.alternatives.map((a) => ({ word: i, ...a })),
  ]);
  const queries = terms.map(wordQuery);
  const rows = await db.query<HitRow>(cachedSearchSql(terms.length, vector !== null), [
    tenantId,
    input.botId,
    limit,
    queries.map((q) => `(${q})`).join(' & ') || null,
    pairs.map((x) => x.word),
    pairs.map((x) => x.lexeme),
    pairs.map((x) => x.credit),
    VECTOR_MIN_COSINE,
    ...queries,
    ...(vector ? [vector, vectorNorm(vector)] : []),
  ]);
  const minScore = input.minScore ?? 0;
  const first = rows[0];
  const topics = questionTopicWeights(
    input.query,
    language,
    terms.map((t) => t.source ?? t.word),
  );
  const queryWordsSeen: QueryWord[] = terms.map((t, i) => ({
    word: t.word,
    idf: first?.word_reach?.[i] ?? null,
    topic: topics[i]!,
    ...(t.source === undefined ? {} : { source: t.source }),
  }));
  const corpusChunks = first?.corpus_chunks ?? 1;
  const hits = rows.map((row) => {
    const parts = new Array<number>(terms.length).fill(0);
    (row.part_words ?? []).forEach((word, j) => {
      parts[word] = row.part_values?.[j] ?? 0;
    });
    const evidence = confidence(queryWordsSeen, parts, corpusChunks, vector ? row.vector : null);
    // A semantic place lifts the score as before (fusion); a lexical match keeps its confidence.
    if (vector && row.score > row.lexical) evidence.score = Math.max(evidence.score, row.score);
    return {
      entryId: row.entry_id,
      chunkId: row.chunk_id,
      title: row.title,
      content: row.content,
      score: Math.round(Math.min(Math.max(evidence.score, 0), 1) * 10_000) / 10_000,
      sourceUrl: row.source_url,
      sourceName: row.source_name,
      sourcePage: row.source_page,
      botId: row.bot_id,
      evidence,
    };
  });
  // The confidence keeps the statement's order within a query except where a rare word decides;
  // the statement's order (BM25) breaks ties.
  const ordered = hits
    .map((hit, index) => ({ hit, index }))
    .sort((a, b) => b.hit.score - a.hit.score || a.index - b.index)
    .map(({ hit }) => hit);
  return { hits: ordered.filter((hit) => hit.score >= minScore), words: queryWordsSeen };
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
