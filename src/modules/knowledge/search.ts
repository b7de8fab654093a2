import { LRUCache } from 'lru-cache';
import { cacheLookups } from '../../observability/metrics.js';
import type { Queryable } from '../../db/database.js';
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
} from '../../shared/text.js';
import { COMPOUND_CREDIT, MIN_COMPOUND_PART, resolveWords, searchChunks } from './search-repository.js';
import { questionText } from '../../shared/salutations.js';
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

/** Lowest trigram similarity at which a vocabulary word counts as the intended spelling. */
const MIN_CORRECTION_SIMILARITY = 0.5;
/** The cosine similarity a chunk needs to count as a semantic hit. */
const VECTOR_MIN_COSINE = 0.3;

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
  const rows = await resolveWords(db, tenantId, botId, {
    minSimilarity: MIN_CORRECTION_SIMILARITY,
    tsConfig: TS_CONFIG[language],
    words: words.map((word) => ({
      word,
      parts: compoundParts(word, MIN_COMPOUND_PART),
      splits: split ? splitForms(word) : [],
    })),
  });
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

/** A lexeme as a tsquery operand (lexemes of letter/digit words hold no quote, but be safe). */
function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The query of one word: any of its stems or of its close spellings. */
function wordQuery(term: ResolvedTerm): string {
  return [...term.exact, ...term.alternatives.map((a) => a.lexeme)].map(quoteLexeme).join(' | ');
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
  // Greetings, thanks and sign-offs say nothing about the topic (salutations.ts).
  const query = questionText(input.query);
  const words = queryWords(query);
  const language = detectQueryLanguage(query || input.query);
  const terms =
    words.length > 0
      ? await resolveTerms(db, tenantId, input.botId, language, words, input.vocabularyVersion)
      : [];
  const vector = input.embeddings ? await queryVector(input.embeddings, query) : null;
  if (terms.length === 0 && !vector) return { hits: [], words: [] };

  const pairs = terms.flatMap((t, i) => [
    ...t.exact.map((lexeme) => ({ word: i, lexeme, credit: 1 })),
    ...t.alternatives.map((a) => ({ word: i, ...a })),
  ]);
  const queries = terms.map(wordQuery);
  const rows = await searchChunks(db, tenantId, input.botId, {
    limit,
    everyWord: queries.map((q) => `(${q})`).join(' & ') || null,
    pairs,
    minCosine: VECTOR_MIN_COSINE,
    wordQueries: queries,
    vector: vector ? { values: vector, norm: vectorNorm(vector) } : null,
  });
  const minScore = input.minScore ?? 0;
  const first = rows[0];
  const topics = questionTopicWeights(
    query,
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
