/**
 * What each SQL statement of one chat request costs on PostgreSQL.
 *
 *   npm run bench:statements [-- --chats=300] [--messages=made-up] [--generic-plans]
 *
 * A scratch database (created and dropped here, on BENCH_DATABASE_URL or the local server)
 * gets one tenant with a bot whose knowledge base is the German development set's paragraphs
 * (eval/knowledge/dev-de.json). The chat endpoint is called in-process with the offline model,
 * once per question of that set, one after another:
 *
 * - statements per chat, and CPU milliseconds per chat of the service (this process) and of
 *   PostgreSQL (the backends of the scratch database, from /proc);
 * - for each distinct statement of the last chats: how often it ran, and the median of
 *   `EXPLAIN (ANALYZE, BUFFERS)` over repeated runs with the parameters it was last called
 *   with (planning and execution time, shared buffers hit and read, rows). Writing
 *   statements are explained inside a transaction that is rolled back;
 * - the same statements prepared, as the service runs them: planning and execution time per
 *   execution under plan_cache_mode auto (after the five custom plans PostgreSQL starts with;
 *   "plans" says which kind it then used) and with the generic plan the service forces for
 *   statements marked by genericPlan (src/db/database.ts);
 * - the knowledge search's generic plan for a rare, a common and an unknown word: 2,100 more
 *   entries make one word common (more chunks than the search's COMMON_DF), then each query's
 *   statement is explained with its custom and its generic plan (planning, execution, buffers).
 *   `--generic-plans` prints the three generic plans in full (EXPLAIN ANALYZE of EXECUTE).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createRequire } from 'node:module';
import { buildApp } from '../src/app.js';
import type { AppContext } from '../src/shared/context.js';
import { importEntries, MAX_IMPORT_ENTRIES } from '../src/modules/knowledge/service.js';
import { searchKnowledge } from '../src/modules/knowledge/search.js';
import {
  argument,
  benchContext,
  benchTenant,
  cpuMs,
  DEFAULT_POSTGRES_URL,
  knowledgeDeps,
  withScratchPostgres,
} from './harness.js';

const CHATS = Number(argument('chats') ?? 300);
const REPEATS = 15;
/**
 * --messages=made-up: questions of the development set's templates with made-up words, as
 * bench:chat's distinct profile sends them: every chat has words no cache and no vocabulary
 * knows (resolved in the database each time).
 */
const MADE_UP = argument('messages') === 'made-up';
const POSTGRES_URL = argument('database_url') ?? DEFAULT_POSTGRES_URL;
/** node-postgres's conversion of a parameter to its text form (not in its type declarations). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(value: unknown): unknown;
};

interface DevSet {
  paragraphs: { title: string; content: string }[];
  questions: { question: string }[];
}

interface Recorded {
  sql: string;
  params: readonly unknown[];
  count: number;
}

/** Questions with two or three made-up words each (syllables drawn by a fixed generator). */
function madeUpQuestions(count: number): string[] {
  let state = 42;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const syllables = 'ka lo mi ster ber gen rad werk ket te sat tel brem se preis ter min'.split(' ');
  const word = () =>
    Array.from(
      { length: 2 + Math.floor(random() * 3) },
      () => syllables[Math.floor(random() * syllables.length)],
    ).join('');
  const templates = [
    (w: string[]) => `Wann habt ihr am ${w[0]} geöffnet, auch für ${w[1]}?`,
    (w: string[]) => `Was kostet ein ${w[0]} mit ${w[1]} und ${w[2]}?`,
    (w: string[]) => `Kann ich einen Termin für ${w[0]} ${w[1]} online buchen?`,
  ];
  return Array.from({ length: count }, () =>
    templates[Math.floor(random() * templates.length)]!([word(), word(), word()]),
  );
}

/** A short name for a statement: its first words, whitespace collapsed. */
const label = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 60);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  await withScratchPostgres(POSTGRES_URL, 'parley_bench_statements', run);
}

async function run(databaseUrl: string): Promise<void> {
  const ctx = await benchContext({
    DATABASE_URL: databaseUrl,
    REDIS_URL: '',
    WEBHOOK_WORKER: 'false',
    CHAT_RATE_LIMIT_MAX: '10000000',
  });
  const set = JSON.parse(readFileSync('eval/knowledge/dev-de.json', 'utf8')) as DevSet;
  const { tenant, bot } = await benchTenant(
    ctx,
    { name: 'Bot', system_prompt: 'Du hilfst Besuchern.' },
    'Statements',
  );
  const entries = set.paragraphs.map((p) => ({ title: p.title, content: p.content }));
  for (let i = 0; i < entries.length; i += MAX_IMPORT_ENTRIES) {
    await importEntries(
      knowledgeDeps(ctx),
      tenant.id,
      { botId: bot.id },
      entries.slice(i, i + MAX_IMPORT_ENTRIES),
      null,
    );
  }
  // As autovacuum would have done by now in a database that has run for a while.
  await ctx.db.exec('ANALYZE');
  const { key } = await ctx.apiKeys.issue({ tenantId: tenant.id });
  const app = await buildApp(ctx);
  await app.ready();

  const recorded = new Map<string, Recorded>();
  let recording = false;
  let statements = 0;
  const query = ctx.db.query.bind(ctx.db);
  ctx.db.query = ((sql: string, params?: readonly unknown[]) => {
    if (recording) {
      statements += 1;
      const entry = recorded.get(sql) ?? { sql, params: params ?? [], count: 0 };
      entry.count += 1;
      entry.params = params ?? [];
      recorded.set(sql, entry);
    }
    return query(sql, params);
  }) as typeof ctx.db.query;

  const questions = MADE_UP ? madeUpQuestions(CHATS + 20) : set.questions.map((q) => q.question);
  const ask = (i: number) =>
    app.inject({
      method: 'POST',
      url: `/api/bot-chat/${bot.id}/chat`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { message: `${questions[i % questions.length]} (${i})` },
    });
  for (let i = 0; i < 20; i++) await ask(i);

  const backends = (
    await ctx.db.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
      [],
    )
  ).map((r) => r.pid);
  recording = true;
  const cpuBefore = process.cpuUsage();
  const pgBefore = cpuMs(backends);
  for (let i = 20; i < 20 + CHATS; i++) {
    const res = await ask(i);
    if (res.statusCode !== 200) throw new Error(`chat answered ${res.statusCode}: ${res.body}`);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const pgMs = cpuMs(backends) - pgBefore;
  recording = false;

  console.log(
    `${CHATS} chats one after another (distinct questions, ${set.paragraphs.length} entries): ` +
      `${(statements / CHATS).toFixed(2)} statements per chat; CPU ms per chat: service ` +
      `${((cpu.user + cpu.system) / 1000 / CHATS).toFixed(2)}, PostgreSQL ${(pgMs / CHATS).toFixed(2)}`,
  );

  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  // Statements whose text varies (a term or a word more) are one row: the commonest variant is explained.
  const byLabel = new Map<string, Recorded & { total: number }>();
  for (const entry of recorded.values()) {
    const seen = byLabel.get(label(entry.sql));
    const total = (seen?.total ?? 0) + entry.count;
    byLabel.set(
      label(entry.sql),
      !seen || entry.count > seen.count ? { ...entry, total } : { ...seen, total },
    );
  }
  const rows = [];
  for (const [name, { sql, params, total: count }] of byLabel) {
    const planning: number[] = [];
    const execution: number[] = [];
    let hit = 0;
    let read = 0;
    let outRows = 0;
    for (let r = 0; r < REPEATS; r++) {
      await client.query('BEGIN');
      try {
        // The exchange was stored already: in this rolled-back transaction it is stored anew.
        for (const value of params) {
          if (typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value)) {
            await client.query('DELETE FROM conversations WHERE id = $1', [value]);
          }
        }
        const result = await client.query<{ 'QUERY PLAN': [Record<string, unknown>] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
          params as unknown[],
        );
        const plan = result.rows[0]!['QUERY PLAN'][0]!;
        const top = plan.Plan as Record<string, number>;
        planning.push(Number(plan['Planning Time']));
        execution.push(Number(plan['Execution Time']));
        hit = top['Shared Hit Blocks'] ?? 0;
        read = top['Shared Read Blocks'] ?? 0;
        outRows = top['Actual Rows'] ?? 0;
      } finally {
        await client.query('ROLLBACK');
      }
    }
    rows.push({
      statement: name,
      'per chat': +(count / CHATS).toFixed(2),
      'planning ms': +median(planning).toFixed(3),
      'execution ms': +median(execution).toFixed(3),
      'shared hit': hit,
      'shared read': read,
      rows: outRows,
    });
  }
  console.table(rows);

  console.log(
    '\nPrepared, as the service runs them (per execution, median of ' +
      `${REPEATS}; auto: after ${CUSTOM_PLANS_FIRST} executions):`,
  );
  const prepared = [];
  for (const [name, { sql, params }] of byLabel) {
    const auto = await explainPrepared(client, sql, params, 'auto');
    const generic = await explainPrepared(client, sql, params, 'force_generic_plan');
    prepared.push({
      statement: name,
      'auto: plans': auto.plans,
      'auto: planning ms': auto.planning,
      'auto: execution ms': auto.execution,
      'generic: planning ms': generic.planning,
      'generic: execution ms': generic.execution,
      'generic: shared hit': generic.hit,
    });
  }
  console.table(prepared);
  // --plan=<start of a statement>: its plan as text, with the timings of each node.
  const wanted = argument('plan');
  const chosen = wanted && [...byLabel.values()].find((entry) => label(entry.sql).startsWith(wanted));
  if (chosen) {
    await client.query('BEGIN');
    const plan = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${chosen.sql}`,
      chosen.params as unknown[],
    );
    await client.query('ROLLBACK');
    console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  await client.end();

  await explainWordKinds(ctx, databaseUrl, tenant.id, bot.id, set);
  await app.close();
  await ctx.close();
}

/** PostgreSQL's number of custom plans before it considers the generic one (plancache.c). */
const CUSTOM_PLANS_FIRST = 5;

/** A parameter as a literal, converted as node-postgres converts it for the wire. */
function literal(client: pg.Client, value: unknown): string {
  const prepared = prepareValue(value) as string | null;
  return prepared === null ? 'NULL' : client.escapeLiteral(String(prepared));
}

/** Removes the stored exchange again, inside the explain's rolled-back transaction. */
async function forgetConversations(client: pg.Client, params: readonly unknown[]): Promise<void> {
  for (const value of params) {
    if (typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value)) {
      await client.query('DELETE FROM conversations WHERE id = $1', [value]);
    }
  }
}

interface PreparedFigures {
  plans: string;
  planning: number;
  execution: number;
  hit: number;
  text: string;
}

/**
 * Prepares the statement and explains its executions under a plan_cache_mode: medians of the
 * last REPEATS runs, and how many of all runs got a generic or a custom plan.
 */
async function explainPrepared(
  client: pg.Client,
  sql: string,
  params: readonly unknown[],
  mode: 'auto' | 'force_generic_plan' | 'force_custom_plan',
  withText = false,
): Promise<PreparedFigures> {
  await client.query(`SET plan_cache_mode = ${mode}`);
  await client.query(`PREPARE bench_statement AS ${sql}`);
  const args = params.map((value) => literal(client, value)).join(', ');
  const execute = `EXECUTE bench_statement(${args})`;
  const planning: number[] = [];
  const execution: number[] = [];
  let hit = 0;
  let text = '';
  const runs = (mode === 'auto' ? CUSTOM_PLANS_FIRST : 0) + REPEATS;
  try {
    for (let r = 0; r < runs; r++) {
      await client.query('BEGIN');
      try {
        await forgetConversations(client, params);
        const result = await client.query<{ 'QUERY PLAN': [Record<string, unknown>] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${execute}`,
        );
        const plan = result.rows[0]!['QUERY PLAN'][0]!;
        if (r >= runs - REPEATS) {
          planning.push(Number(plan['Planning Time']));
          execution.push(Number(plan['Execution Time']));
          hit = (plan.Plan as Record<string, number>)['Shared Hit Blocks'] ?? 0;
        }
        if (withText && r === runs - 1) {
          const lines = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${execute}`);
          text = lines.rows.map((line) => line['QUERY PLAN']).join('\n');
        }
      } finally {
        await client.query('ROLLBACK');
      }
    }
    const counts = await client.query<{ generic_plans: number; custom_plans: number }>(
      "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'bench_statement'",
    );
    const { generic_plans, custom_plans } = counts.rows[0]!;
    return {
      plans: `${generic_plans} generic, ${custom_plans} custom`,
      planning: +median(planning).toFixed(3),
      execution: +median(execution).toFixed(3),
      hit,
      text,
    };
  } finally {
    await client.query('DEALLOCATE bench_statement');
    await client.query('RESET plan_cache_mode');
  }
}

/** Words that make the filler entries: the first one ends up in more chunks than COMMON_DF. */
const COMMON_WORD = 'Gutschein';
const FILLER_ENTRIES = 2_100;

/**
 * The knowledge search for a rare, a common and an unknown word, each with its custom and its
 * generic plan. The filler entries are added after the chats, so the chat figures above are
 * those of the development set alone.
 */
async function explainWordKinds(
  ctx: AppContext,
  databaseUrl: string,
  tenantId: string,
  botId: string,
  set: DevSet,
): Promise<void> {
  const db = ctx.db;
  const filler = Array.from({ length: FILLER_ENTRIES }, (_, i) => ({
    title: `Hinweis ${i}`,
    content: `${COMMON_WORD} Nummer ${i} gilt ein Jahr lang für alle Leistungen im Laden.`,
  }));
  for (let i = 0; i < filler.length; i += MAX_IMPORT_ENTRIES) {
    await importEntries(
      knowledgeDeps(ctx),
      tenantId,
      { botId },
      filler.slice(i, i + MAX_IMPORT_ENTRIES),
      null,
    );
  }
  await db.exec('ANALYZE');
  const queries = {
    rare: set.questions[0]!.question,
    common: COMMON_WORD,
    unknown: 'Quastenflosserkrawatte',
  };
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  const figures = [];
  const texts: string[] = [];
  try {
    for (const [kind, query] of Object.entries(queries)) {
      const query_ = db.query;
      let search: { sql: string; params: readonly unknown[] } | undefined;
      db.query = ((sql: string, params?: readonly unknown[]) => {
        if (sql.trimStart().startsWith('WITH typed')) search = { sql, params: params ?? [] };
        return query_(sql, params);
      }) as typeof db.query;
      const hits = await searchKnowledge(db, tenantId, { botId, query });
      db.query = query_;
      if (!search) throw new Error(`no search statement for ${kind}`);
      const custom = await explainPrepared(client, search.sql, search.params, 'force_custom_plan');
      const generic = await explainPrepared(client, search.sql, search.params, 'force_generic_plan', true);
      figures.push({
        word: `${kind}: ${query.slice(0, 40)}`,
        hits: hits.length,
        'custom: planning ms': custom.planning,
        'custom: execution ms': custom.execution,
        'custom: shared hit': custom.hit,
        'generic: planning ms': generic.planning,
        'generic: execution ms': generic.execution,
        'generic: shared hit': generic.hit,
      });
      texts.push(`-- generic plan, ${kind} word (${query})\n${generic.text}`);
    }
  } finally {
    await client.end();
  }
  console.log(
    `\nKnowledge search with ${set.paragraphs.length + FILLER_ENTRIES} entries ("${COMMON_WORD}" in ` +
      `${FILLER_ENTRIES} of them), per execution, median of ${REPEATS}:`,
  );
  console.table(figures);
  if (process.argv.includes('--generic-plans')) console.log(texts.join('\n\n'));
}

await main();
