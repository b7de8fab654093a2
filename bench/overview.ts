/**
 * The overview's numbers (GET /api/overview/numbers) on a large tenant, on PostgreSQL.
 *
 *   npm run bench:overview [-- --messages=1000000] [--requests=60] [--days=30]
 *
 * A scratch database (created and dropped here, on BENCH_DATABASE_URL or the local server)
 * gets one tenant with five bots and `messages` messages (default 1,000,000) in conversations of
 * ten messages spread over the last 90 days, written with generate_series: the bot answers
 * from knowledge in about 70 % of its replies, every 7th conversation is handed over and most
 * of those get a person's reply, every 5th is rated, every 50th books through the bot. After
 * VACUUM ANALYZE (as autovacuum would have done), the endpoint is called in process one request
 * after another, for all bots and for one bot over the last `days` days, and the p50/p99 of
 * each are printed. Target: p99 ≤ 200 ms at 1,000,000 messages.
 */
import { buildApp } from '../src/app.js';
import { createBot } from '../src/modules/bots/editing.js';
import * as numbers from '../src/modules/numbers/repository.js';
import { topUnanswered } from '../src/modules/unanswered/service.js';
import {
  argument,
  benchContext,
  benchSession,
  benchTenant,
  DEFAULT_POSTGRES_URL,
  percentile,
  withScratchPostgres,
} from './harness.js';

const MESSAGES = Number(argument('messages') ?? 1_000_000);
const REQUESTS = Number(argument('requests') ?? 60);
const DAYS = Number(argument('days') ?? 30);
const POSTGRES_URL = argument('database_url') ?? DEFAULT_POSTGRES_URL;
const PER_CONVERSATION = 10;

async function run(databaseUrl: string): Promise<void> {
  const ctx = await benchContext({
    DATABASE_URL: databaseUrl,
    REDIS_URL: '',
    WEBHOOK_WORKER: 'false',
    // Seeding writes a million rows in one statement.
    DATABASE_STATEMENT_TIMEOUT_MS: '1800000',
  });
  try {
    const { tenant, bot } = await benchTenant(ctx, { name: 'Bot 1' }, 'Numbers');
    const bots: string[] = [bot.id];
    for (let i = 1; i < 5; i++) bots.push((await createBot(ctx.db, tenant.id, { name: `Bot ${i + 1}` })).id);
    const { userId, token } = await benchSession(ctx, tenant.id, 'owner');

    const conversations = Math.ceil(MESSAGES / PER_CONVERSATION);
    const seedStart = performance.now();
    await ctx.db.query(
      `INSERT INTO conversations (tenant_id, bot_id, channel, created_at, status, handover_at, escalated_at,
         rating, rated_at, message_count, last_message_at)
       SELECT $1, ($2::uuid[])[1 + i % 5], 'api', t.at,
         CASE WHEN i % 7 = 0 THEN 'handed_over' ELSE 'ended' END,
         CASE WHEN i % 7 = 0 THEN t.at + interval '150 seconds' END,
         CASE WHEN i % 7 = 0 THEN t.at + interval '150 seconds' END,
         CASE WHEN i % 5 = 0 THEN 1 + (i / 5) % 5 END,
         CASE WHEN i % 5 = 0 THEN t.at + interval '10 minutes' END,
         ${PER_CONVERSATION}, t.at + interval '10 minutes'
       FROM generate_series(1, $3::int) i
       CROSS JOIN LATERAL (SELECT now() - interval '90 days' * random() AS at OFFSET 0 * i) t`,
      [tenant.id, bots, conversations],
    );
    // Ten messages per conversation, 30 s apart; the last one of most handed-over conversations
    // is a person's reply.
    await ctx.db.query(
      `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, channel, tokens, model,
         knowledge_used, author_user_id, created_at)
       SELECT c.tenant_id, c.id, c.bot_id, CASE WHEN j % 2 = 1 THEN 'user' ELSE 'assistant' END,
         CASE WHEN j % 2 = 1 THEN 'Frage ' || (hashtext(c.id::text || j) % 400) ELSE 'Antwort' END,
         'api', 20, CASE WHEN j % 2 = 0 THEN 'offline' END,
         j % 2 = 0 AND random() < 0.7,
         CASE WHEN j = ${PER_CONVERSATION} AND c.handover_at IS NOT NULL AND random() < 0.8 THEN $2::uuid END,
         c.created_at + j * interval '30 seconds' + CASE WHEN j = ${PER_CONVERSATION} THEN random() * interval '2 hours' ELSE interval '0' END
       FROM conversations c CROSS JOIN generate_series(1, ${PER_CONVERSATION}) j
       WHERE c.tenant_id = $1`,
      [tenant.id, userId],
    );
    const [event] = await ctx.db.query<{ id: string }>(
      `INSERT INTO events (tenant_id, title, event_date, capacity_total, status)
       VALUES ($1, 'Kurs', current_date + 30, 1000000, 'selling') RETURNING id`,
      [tenant.id],
    );
    await ctx.db.query(
      `WITH picked AS (
         SELECT id, bot_id, created_at, row_number() OVER () AS n FROM conversations
         WHERE tenant_id = $1 AND hashtext(id::text) % 50 = 0
       ), contacts AS (
         INSERT INTO contacts (tenant_id, name, sender_id)
         SELECT $1, 'Gast', 'bench-' || n FROM picked RETURNING id, sender_id
       )
       INSERT INTO event_bookings (tenant_id, event_id, contact_id, booked_at, booking_channel, metadata)
       SELECT $1, $2, k.id, p.created_at, 'api',
         jsonb_build_object('source', 'chat', 'bot_id', p.bot_id, 'conversation_id', p.id, 'tag', 'BOOK')
       FROM picked p JOIN contacts k ON k.sender_id = 'bench-' || p.n`,
      [tenant.id, event!.id],
    );
    await ctx.db.exec('VACUUM ANALYZE');
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const [{ n }] = (await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM messages')) as [
      { n: number },
    ];
    console.log(
      `seeded ${n.toLocaleString('en')} messages in ${conversations.toLocaleString('en')} conversations (${seedSeconds.toFixed(1)} s)`,
    );

    const app = await buildApp(ctx);
    await app.ready();
    const from = new Date(Date.now() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    const cases = [
      { label: `all bots, ${DAYS} days`, query: `from=${from}` },
      { label: `one bot, ${DAYS} days`, query: `from=${from}&bot_id=${bots[0]}` },
    ];
    for (const c of cases) {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS + 3; i++) {
        const start = performance.now();
        const res = await app.inject({
          method: 'GET',
          url: `/api/overview/numbers?${c.query}`,
          headers: { authorization: `Bearer ${token}` },
        });
        const ms = performance.now() - start;
        if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
        if (i >= 3) times.push(ms); // the first ones warm the caches
        if (i === 0) {
          const body = res.json<{ conversations: number; replies: number; knowledge_share: number }>();
          console.log(
            `  ${c.label}: ${body.conversations} conversations, ${body.replies} bot replies, knowledge share ${body.knowledge_share?.toFixed(2)}`,
          );
        }
      }
      console.log(
        `${c.label}: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms (${REQUESTS} requests, target ≤ 200 ms)`,
      );
    }
    // Where the time goes: each part of the endpoint alone (median of 10, all bots).
    const scope = {
      from: new Date(`${from}T00:00:00Z`),
      before: new Date(Date.now() + 86_400_000),
      botId: null,
    };
    const parts: [string, () => Promise<unknown>][] = [
      ['conversations per day', () => numbers.conversationsPerDay(ctx.db, tenant.id, scope)],
      ['bot replies per day', () => numbers.repliesPerDay(ctx.db, tenant.id, scope)],
      ['first human reply', () => numbers.firstHumanReply(ctx.db, tenant.id, scope)],
      ['ratings', () => numbers.ratings(ctx.db, tenant.id, scope)],
      ['bookings', () => numbers.botBookings(ctx.db, tenant.id, scope)],
      ['top unanswered', () => topUnanswered(ctx.db, tenant.id, { ...scope, limit: 5 })],
    ];
    for (const [label, part] of parts) {
      const times: number[] = [];
      for (let i = 0; i < 11; i++) {
        const start = performance.now();
        await part();
        if (i > 0) times.push(performance.now() - start);
      }
      console.log(`  ${label}: p50 ${percentile(times, 50).toFixed(1)} ms`);
    }
    await app.close();
  } finally {
    await ctx.close();
  }
}

async function main(): Promise<void> {
  await withScratchPostgres(POSTGRES_URL, 'parley_bench_overview', run);
}

await main();
