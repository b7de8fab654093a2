import { bumpKnowledgeVocabulary } from '../tenants/index.js';
import type { Database, Queryable } from '../../db/database.js';
import { badRequest, notFound, type ErrorDetails } from '../../http/errors.js';
import { findBot, holdBot, type BotRow } from '../bots/index.js';
import { vectorNorm, type EmbeddingsClient } from './embeddings.js';
import { decodeTimeCursor, DEFAULT_PAGE_SIZE, encodeTimeCursor, splitPage } from '../../shared/pagination.js';
import * as repo from './repository.js';
import { MAX_IMPORT_ENTRIES, type EntryInput } from './schema.js';
import { scheduleBackfill } from './vectors.js';
import type { ChunkWrite, EntryRow, EntryScope, EntryWrite } from './repository.js';
import { detectLanguage as detectMessageLanguage } from '../../shared/language.js';
import { questionText } from '../../shared/salutations.js';
import { decideAnswerability, type Answerability } from './answerability.js';
import { DEFAULT_SEARCH_LIMIT, searchWithEvidence, type KnowledgeHit, type SearchInput } from './search.js';
import { chunkText, detectLanguage, vocabularyOf } from '../../shared/text.js';

export interface KnowledgeDeps {
  db: Database;
  embeddings: EmbeddingsClient | null;
  maxEntryBytes: number;
  /** Deployment-wide minimum score (KNOWLEDGE_MIN_SCORE); a bot's knowledge_min_score wins. */
  minScore: number;
}

export { MAX_IMPORT_ENTRIES, type EntryInput };

export interface PreparedEntry {
  write: EntryWrite;
  chunks: string[];
  words: string[];
}

/** Validates and normalises an entry and splits it into chunks; nothing is written yet. */
/** The refusal details of a blank or wrong field of an entry (`entries.3.title` in an import). */
function blank(field: string, name: string): ErrorDetails {
  const path = `${field}.${name}`;
  const top = path.split('.')[0]!;
  return top === name ? { code: 'field_blank', field: name } : { code: 'field_blank', field: top, path };
}

export function prepareEntry(input: EntryInput, maxEntryBytes: number, field = 'body'): PreparedEntry {
  const title = input.title.trim();
  if (!title) throw badRequest(`Field '${field}.title' must not be blank`, blank(field, 'title'));
  const content = input.content.replace(/\r\n?/g, '\n');
  if (!content.trim())
    throw badRequest(`Field '${field}.content' must not be blank`, blank(field, 'content'));
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > maxEntryBytes) {
    throw badRequest(
      `Field '${field}.content' is ${bytes} bytes; an entry holds at most ${maxEntryBytes} bytes`,
      {
        max_bytes: maxEntryBytes,
      },
    );
  }
  const sourceUrl = input.source_url?.trim() || null;
  if (sourceUrl && !/^https?:\/\/[^\s]+$/i.test(sourceUrl)) {
    throw badRequest(`Field '${field}.source_url' must be an http or https URL`, {
      code: 'url_scheme',
      ...blank(field, 'source_url'),
    });
  }
  const tags = [...new Set((input.tags ?? []).map((t) => t.trim()).filter((t) => t !== ''))];
  const detected = input.language
    ? { language: input.language, detected: false }
    : detectLanguage(`${title}\n${content}`);
  return {
    write: {
      title,
      content,
      sourceUrl,
      tags,
      language: detected.language,
      languageDetected: detected.detected,
      vectorsMissing: false,
    },
    chunks: chunkText(content),
    words: vocabularyOf(`${title}\n${content}`),
  };
}

/**
 * Chunk vectors, computed before the transaction so no database lock waits on the network.
 * When the endpoint fails (logged by the client) the entry is still stored, found by full-text
 * search and flagged `vectors_missing`; the background backfill adds the vectors once the
 * endpoint answers again.
 */
export async function embedChunks(
  deps: KnowledgeDeps,
  title: string,
  chunks: string[],
): Promise<{ chunks: ChunkWrite[]; vectorsMissing: boolean }> {
  let vectors: number[][] | null = null;
  if (deps.embeddings && chunks.length > 0) {
    try {
      vectors = await deps.embeddings.embed(chunks.map((c) => `${title}\n${c}`));
    } catch {
      vectors = null;
    }
  }
  return {
    chunks: chunks.map((content, i) => {
      const embedding = vectors?.[i] ?? null;
      return { content, embedding, norm: embedding ? vectorNorm(embedding) : null };
    }),
    vectorsMissing: deps.embeddings !== null && chunks.length > 0 && vectors === null,
  };
}

/** Holds the bot for the transaction so it cannot be deleted under a new entry. */
export async function holdScope(tx: Queryable, tenantId: string, scope: EntryScope): Promise<void> {
  if (scope.botId === null) return;
  if (!(await holdBot(tx, tenantId, scope.botId))) throw notFound('Bot');
}

export async function writeIndex(
  tx: Queryable,
  tenantId: string,
  entry: EntryRow,
  prepared: PreparedEntry,
  chunks: ChunkWrite[],
): Promise<EntryRow> {
  await repo.replaceChunks(tx, tenantId, entry, chunks);
  // A new word moves the tenant's vocabulary version on: cached query-word resolutions of
  // older versions are then no longer used (see search.ts).
  if ((await repo.addTerms(tx, tenantId, prepared.words)) > 0) await bumpKnowledgeVocabulary(tx, tenantId);
  return { ...entry, chunk_count: chunks.length };
}

export async function createEntry(
  deps: KnowledgeDeps,
  tenantId: string,
  scope: EntryScope,
  input: EntryInput,
  createdBy: string | null,
): Promise<EntryRow> {
  const [entry] = await storeEntries(deps, tenantId, scope, [input], createdBy, () => 'body');
  return entry!;
}

/** Stores several entries at once: all of them or, when any is invalid, none. */
export function importEntries(
  deps: KnowledgeDeps,
  tenantId: string,
  scope: EntryScope,
  inputs: EntryInput[],
  createdBy: string | null,
): Promise<EntryRow[]> {
  return storeEntries(deps, tenantId, scope, inputs, createdBy, (i) => `import[${i}]`);
}

async function storeEntries(
  deps: KnowledgeDeps,
  tenantId: string,
  scope: EntryScope,
  inputs: EntryInput[],
  createdBy: string | null,
  fieldOf: (index: number) => string,
): Promise<EntryRow[]> {
  if (inputs.length === 0) {
    throw badRequest('Nothing to import: give at least one entry or file', { code: 'import_empty' });
  }
  if (inputs.length > MAX_IMPORT_ENTRIES) {
    throw badRequest(`An import holds at most ${MAX_IMPORT_ENTRIES} entries, got ${inputs.length}`, {
      code: 'import_too_many',
      field: 'entries',
      limit: MAX_IMPORT_ENTRIES,
    });
  }
  const prepared = inputs.map((input, i) => prepareEntry(input, deps.maxEntryBytes, fieldOf(i)));
  const embedded: Awaited<ReturnType<typeof embedChunks>>[] = [];
  for (const p of prepared) embedded.push(await embedChunks(deps, p.write.title, p.chunks));
  const stored = await deps.db.transaction(async (tx) => {
    await holdScope(tx, tenantId, scope);
    const rows: EntryRow[] = [];
    for (const [i, p] of prepared.entries()) {
      const { chunks, vectorsMissing } = embedded[i]!;
      const entry = await repo.insertEntry(tx, tenantId, scope, { ...p.write, vectorsMissing, createdBy });
      rows.push(await writeIndex(tx, tenantId, entry, p, chunks));
    }
    await repo.setOnboardingStep(tx, tenantId, 'entry_created', true);
    return rows;
  });
  afterEmbedding(deps, embedded);
  return stored;
}

/** After vectors were computed successfully, entries left without them earlier get theirs. */
export function afterEmbedding(deps: KnowledgeDeps, embedded: { vectorsMissing: boolean }[]): void {
  if (deps.embeddings && embedded.some((e) => !e.vectorsMissing)) scheduleBackfill(deps.db, deps.embeddings);
}

/** Replaces an entry and re-indexes it in the same transaction. */
export async function replaceEntry(
  deps: KnowledgeDeps,
  tenantId: string,
  scope: EntryScope,
  entryId: string,
  input: EntryInput,
): Promise<EntryRow> {
  const prepared = prepareEntry(input, deps.maxEntryBytes);
  const embedded = await embedChunks(deps, prepared.write.title, prepared.chunks);
  const stored = await deps.db.transaction(async (tx) => {
    const entry = await repo.updateEntry(tx, tenantId, scope, entryId, {
      ...prepared.write,
      vectorsMissing: embedded.vectorsMissing,
    });
    if (!entry) throw notFound('Knowledge entry');
    return writeIndex(tx, tenantId, entry, prepared, embedded.chunks);
  });
  afterEmbedding(deps, [embedded]);
  return stored;
}

const ENTRY_LIST = 'knowledge_entries';

/** One page of the scope's entries (newest first, without full content), with the scope's total. */
export async function listEntriesPage(
  db: Queryable,
  tenantId: string,
  scope: EntryScope,
  query: { limit?: number; cursor?: string; tag?: string },
) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const { entries, total } = await repo.listEntries(db, tenantId, scope, {
    limit,
    after: decodeTimeCursor(ENTRY_LIST, query.cursor),
    tag: query.tag,
  });
  const page = splitPage(entries, limit, (last) =>
    encodeTimeCursor(ENTRY_LIST, { at: last.cursor_at, id: last.id }),
  );
  return { ...page, total };
}

/** The tenant's onboarding steps, and marking one done or not done. */

export async function removeEntry(db: Queryable, tenantId: string, scope: EntryScope, entryId: string) {
  if (!(await repo.deleteEntry(db, tenantId, scope, entryId))) throw notFound('Knowledge entry');
}

export async function getEntry(db: Queryable, tenantId: string, scope: EntryScope, entryId: string) {
  const entry = await repo.findEntry(db, tenantId, scope, entryId);
  if (!entry) throw notFound('Knowledge entry');
  return entry;
}

/** The bot of a bot-scoped request; another tenant's bot is reported as missing. */
export async function requireBot(db: Queryable, tenantId: string, botId: string): Promise<BotRow> {
  const bot = await findBot(db, tenantId, botId);
  if (!bot) throw notFound('Bot');
  return bot;
}

/** The minimum score the chat applies for this bot. */
export function effectiveMinScore(
  bot: Pick<BotRow, 'knowledge_min_score'>,
  deploymentMinScore: number,
): number {
  return bot.knowledge_min_score ?? deploymentMinScore;
}

/**
 * The chat's knowledge: the search's hits and the answerability decision. When the decision is
 * no, `hits` is empty and the chat behaves as without any knowledge (no-knowledge marker in the
 * prompt, `knowledge_used` false, the offline model hands over).
 */
export async function searchForAnswer(
  db: Queryable,
  tenantId: string,
  input: SearchInput & { minScore: number },
): Promise<{ hits: KnowledgeHit[]; decision: Answerability; searched: KnowledgeHit[] }> {
  const { minScore, ...search } = input;
  const result = await searchWithEvidence(db, tenantId, search);
  const question = questionText(input.query);
  const decision = decideAnswerability({
    question,
    language: detectMessageLanguage(question || input.query),
    hits: result.hits,
    words: result.words,
    minScore,
  });
  return { hits: decision.hits, decision, searched: result.hits };
}

/**
 * The hit test: what the chat would retrieve for this query, plus the hits below the bot's
 * minimum score (marked), so a tenant can tune entries and the threshold, and the chat's
 * answerability decision for the query.
 */
export async function hitTest(
  deps: KnowledgeDeps,
  tenantId: string,
  bot: BotRow,
  query: string,
  limit: number,
): Promise<{
  minScore: number;
  hits: (KnowledgeHit & { usedInChat: boolean })[];
  decision: Answerability;
}> {
  if (!query.trim())
    throw badRequest("Query parameter 'q' must not be blank", { code: 'query_blank', field: 'q' });
  const minScore = effectiveMinScore(bot, deps.minScore);
  const result = await searchWithEvidence(deps.db, tenantId, {
    botId: bot.id,
    query,
    limit: Math.max(limit, DEFAULT_SEARCH_LIMIT),
    embeddings: deps.embeddings,
  });
  await repo.setOnboardingStep(deps.db, tenantId, 'search_tested', true);
  // The chat decides on its top 3 and uses the hits the decision keeps.
  const question = questionText(query);
  const decision = decideAnswerability({
    question,
    language: detectMessageLanguage(question || query),
    hits: result.hits.slice(0, DEFAULT_SEARCH_LIMIT),
    words: result.words,
    minScore,
  });
  const used = new Set(decision.hits.map((hit) => hit.chunkId));
  const searched = result.hits;
  return {
    minScore,
    decision,
    hits: searched.slice(0, limit).map((hit, i) => ({
      ...hit,
      usedInChat: i < DEFAULT_SEARCH_LIMIT && used.has(hit.chunkId),
    })),
  };
}

/** How many knowledge entries the bot answers from (its own and those for all bots). */
export function countKnowledgeFor(db: Queryable, tenantId: string, botId: string): Promise<number> {
  return repo.countBotEntries(db, tenantId, botId);
}
