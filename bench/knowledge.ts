/**
 * Knowledge search benchmark: p50/p99 latency of searchKnowledge for a tenant with 1,000,
 * 10,000 and 100,000 chunks, on PGlite and on PostgreSQL, and indexing throughput of the
 * real write path (chunking, tsvector, vocabulary) in chunks per second.
 *
 *   npm run bench:knowledge [-- --queries=300 --sizes=1000,10000,100000 --index_entries=300]
 *   npm run bench:knowledge -- --backends=postgres --database_url=postgres://user@host:5432/postgres
 *
 * Settings are flags or BENCH_ variables (bench/harness.ts): --backends (pglite,postgres),
 * --show_slow (the five slowest queries per size), --keep_database (keeps the PostgreSQL one).
 * PGlite runs in memory; PostgreSQL runs in a scratch database that is created and dropped.
 */
import { performance } from 'node:perf_hooks';
import type { Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import { searchKnowledge } from '../src/modules/knowledge/search.js';
import { importEntries, type KnowledgeDeps } from '../src/modules/knowledge/service.js';
import { addTerms } from '../src/modules/knowledge/repository.js';
import { argument, benchTenant, DEFAULT_POSTGRES_URL, setting, withScratchPostgres } from './harness.js';

const SIZES = setting('sizes', '1000,10000,100000').split(',').map(Number);
const QUERIES = Number(setting('queries', '300'));
const WARMUP = 30;
const INDEX_ENTRIES = Number(setting('index_entries', '300'));
const BATCH = 5_000;
const POSTGRES_URL = setting('database_url', DEFAULT_POSTGRES_URL);
/** Comma-separated subset of pglite,postgres. */
const BACKENDS = setting('backends', 'pglite,postgres').split(',');

/** Deterministic pseudo-random numbers, so every run searches the same data. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SYLLABLES =
  'ka ro min tel sun ber lo ga fen dor mi sa ul tra wen ko pe ri zu ha ne bo lin mar kus stein feld haus'.split(
    ' ',
  );
const REAL_WORDS =
  'kurs kurse preis preise öffnungszeiten mitgliedschaft yoga pilates sauna parkplatz anmeldung termin trainer studio vertrag kündigung probetraining getränke handtuch dusche'.split(
    ' ',
  );

function vocabulary(size: number, random: () => number): string[] {
  const words = new Set(REAL_WORDS);
  while (words.size < size) {
    const parts = 2 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < parts; i += 1) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

/** Word i is drawn with a skew towards the front of the list, like real word frequencies. */
function pick(words: string[], random: () => number): string {
  return words[Math.floor(random() ** 3 * words.length)]!;
}

function typo(word: string, random: () => number): string {
  if (word.length < 5) return word;
  const at = 1 + Math.floor(random() * (word.length - 2));
  return word.slice(0, at) + word.slice(at + 1);
}

/** The value at index ⌊p·n⌋ of sorted values (not the harness's nearest rank: figures stay comparable). */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function bulkLoad(
  db: Database,
  tenantId: string,
  botId: string,
  words: string[],
  from: number,
  to: number,
) {
  // A GIN index is built far faster in one pass than row by row; it is rebuilt below with the
  // definition of the migrations.
  await db.query('DROP INDEX knowledge_chunks_tsv_idx');
  const random = rng(from + 1);
  for (let start = from; start < to; start += BATCH) {
    const end = Math.min(start + BATCH, to);
    // One entry per chunk; each chunk is 60–100 words drawn from the skewed vocabulary. The
    // text is made here and sent as one array per batch: one statement writes 5,000 rows.
    const bodies = Array.from({ length: end - start }, () =>
      Array.from({ length: 60 + Math.floor(random() * 41) }, () => pick(words, random)).join(' '),
    );
    await db.query(
      `WITH entries AS (
         INSERT INTO knowledge_entries (tenant_id, bot_id, title, content, language, chunk_count)
         SELECT $1, $2, 'Eintrag ' || ($3::int + b.n), '-', 'de', 1
         FROM unnest($4::text[]) WITH ORDINALITY AS b(body, n)
         RETURNING id, title
       )
       INSERT INTO knowledge_chunks (tenant_id, entry_id, bot_id, position, content, tsv)
       SELECT $1, e.id, $2, 0, b.body,
              setweight(to_tsvector('german', e.title), 'A') || setweight(to_tsvector('german', b.body), 'B')
       FROM unnest($4::text[]) WITH ORDINALITY AS b(body, n)
       JOIN entries e ON e.title = 'Eintrag ' || ($3::int + b.n)`,
      [tenantId, botId, start, bodies],
    );
  }
  await db.transaction(async (tx) => {
    await tx.query("SET LOCAL maintenance_work_mem = '256MB'");
    await tx.query(
      'CREATE INDEX knowledge_chunks_tsv_idx ON knowledge_chunks USING gin (tsv) WITH (fastupdate = off)',
    );
  });
  await db.query('ANALYZE knowledge_chunks');
  await db.query('ANALYZE knowledge_terms');
}

async function measureSearch(db: Database, tenantId: string, botId: string, words: string[], seed: number) {
  const random = rng(seed);
  const queries = Array.from({ length: QUERIES + WARMUP }, () => {
    const n = 1 + Math.floor(random() * 4);
    const terms = Array.from({ length: n }, () => pick(words, random));
    if (random() < 0.2) terms[0] = typo(terms[0]!, random);
    return `Wie ist das mit ${terms.join(' und ')}?`;
  });
  const timings: number[] = [];
  const slow: [number, string][] = [];
  let hits = 0;
  for (const [i, query] of queries.entries()) {
    const started = performance.now();
    const result = await searchKnowledge(db, tenantId, { botId, query, limit: 3 });
    const elapsed = performance.now() - started;
    if (i >= WARMUP) {
      timings.push(elapsed);
      slow.push([elapsed, query]);
      hits += result.length;
    }
  }
  timings.sort((a, b) => a - b);
  if (argument('show_slow')) {
    for (const [ms, query] of slow.sort((a, b) => b[0] - a[0]).slice(0, 5))
      console.log(`    ${ms.toFixed(1)} ms  ${query}`);
  }
  return { p50: percentile(timings, 50), p99: percentile(timings, 99), avgHits: hits / QUERIES };
}

async function measureIndexing(db: Database, tenantId: string, botId: string, words: string[]) {
  const random = rng(7);
  const paragraph = () => Array.from({ length: 90 }, () => pick(words, random)).join(' ') + '.';
  const entries = Array.from({ length: INDEX_ENTRIES }, (_, i) => ({
    title: `Handbuch ${i}`,
    content: Array.from({ length: 6 }, paragraph).join('\n\n'),
    language: 'de' as const,
  }));
  const deps: KnowledgeDeps = { db, embeddings: null, maxEntryBytes: 1024 * 1024, minScore: 0.4 };
  const started = performance.now();
  let chunks = 0;
  for (let i = 0; i < entries.length; i += 50) {
    const stored = await importEntries(deps, tenantId, { botId }, entries.slice(i, i + 50), null);
    chunks += stored.reduce((sum, e) => sum + e.chunk_count, 0);
  }
  const seconds = (performance.now() - started) / 1000;
  await db.query('DELETE FROM knowledge_entries WHERE tenant_id = $1 AND title LIKE $2', [
    tenantId,
    'Handbuch %',
  ]);
  return { chunks, seconds, perSecond: chunks / seconds };
}

async function run(name: string, db: Database) {
  await migrate(db);
  const { tenant, bot } = await benchTenant({ db }, { name: 'Bench-Bot' }, 'Bench GmbH');
  const words = vocabulary(20_000, rng(42));
  await db.transaction((tx) => addTerms(tx, tenant.id, words));
  const indexing = await measureIndexing(db, tenant.id, bot.id, words);
  console.log(
    `${name}: indexing ${indexing.chunks} chunks in ${indexing.seconds.toFixed(1)} s = ${indexing.perSecond.toFixed(0)} chunks/s`,
  );
  let loaded = 0;
  for (const size of SIZES) {
    const started = performance.now();
    await bulkLoad(db, tenant.id, bot.id, words, loaded, size);
    const loadSeconds = (performance.now() - started) / 1000;
    loaded = size;
    const result = await measureSearch(db, tenant.id, bot.id, words, size);
    console.log(
      `${name}: ${size.toLocaleString('en')} chunks  search p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  ` +
        `(avg ${result.avgHits.toFixed(2)} hits/query; bulk load ${loadSeconds.toFixed(1)} s)`,
    );
  }
}

async function main() {
  console.log(`Knowledge search benchmark: ${QUERIES} queries per size (after ${WARMUP} warm-up), top 3`);
  if (BACKENDS.includes('pglite')) {
    const pglite = await openPglite();
    try {
      await run('PGlite    ', pglite.db);
    } finally {
      await pglite.db.close();
    }
  }
  if (!BACKENDS.includes('postgres')) return;
  const keep = Boolean(argument('keep_database'));
  await withScratchPostgres(
    POSTGRES_URL,
    'parley_bench',
    async (url) => {
      // The bulk load of 90,000 chunks is one statement per batch, longer than the service's
      // statement timeout on a busy machine.
      const db = openPostgres(url, 4, { statementTimeoutMs: 10 * 60_000 });
      try {
        await run('PostgreSQL', db);
      } finally {
        await db.close();
        if (keep) console.log(`PostgreSQL: kept ${url}`);
      }
    },
    { optional: true, keep },
  );
}

await main();
