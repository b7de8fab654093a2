import { describe, expect, it } from 'vitest';
import { maintainTables, planMaintenance } from '../../src/db/maintenance.js';
import { backgroundJobs } from '../../src/scheduler.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { sendChat } from '../chat/helpers.js';
import { waitFor } from '../helpers/net.js';

describe('table maintenance thresholds', () => {
  const table = { table: 't', live: 1000, dead: 0, modifiedSinceAnalyze: 0, analyzed: true };

  it('vacuums past 50 + 20 % dead rows and analyzes past 50 + 10 % changes or when never analyzed', () => {
    expect(planMaintenance([table])).toEqual({ vacuum: [], analyze: [] });
    expect(planMaintenance([{ ...table, dead: 250 }])).toEqual({ vacuum: [], analyze: [] });
    expect(planMaintenance([{ ...table, dead: 251 }])).toEqual({ vacuum: ['t'], analyze: [] });
    expect(planMaintenance([{ ...table, modifiedSinceAnalyze: 150 }])).toEqual({ vacuum: [], analyze: [] });
    expect(planMaintenance([{ ...table, modifiedSinceAnalyze: 151 }])).toEqual({
      vacuum: [],
      analyze: ['t'],
    });
    expect(planMaintenance([{ ...table, analyzed: false }])).toEqual({ vacuum: [], analyze: ['t'] });
    expect(planMaintenance([{ ...table, live: 0, analyzed: false }])).toEqual({ vacuum: [], analyze: [] });
  });
});

describeApp('table maintenance', (get) => {
  it('after chats it vacuums the tables they left dead rows in and gives the planner statistics', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx, { quota: 100_000 });
    const bot = await tenant.bot();
    await maintainTables(db);
    for (let i = 0; i < 60; i++) {
      const res = await sendChat(get(), tenant, bot.id, { message: `Frage Nummer ${i}` });
      expect(res.statusCode).toBe(200);
    }
    // PostgreSQL's other pool connections report their counters within about a second.
    const done = new Set<string>();
    const vacuumed = new Set<string>();
    await waitFor(
      async () => {
        const plan = await maintainTables(db);
        plan.vacuum.forEach((t) => vacuumed.add(t));
        [...plan.vacuum, ...plan.analyze].forEach((t) => done.add(t));
        return vacuumed.has('chat_reservations') && done.has('messages');
      },
      5000,
      'chat_reservations vacuumed and messages analysed',
      100,
    ).catch(() => undefined);
    // Each chat inserts and deletes its quota reservation: 60 dead rows in an empty table.
    expect([...vacuumed]).toContain('chat_reservations');
    expect([...done]).toContain('messages');
    const [stats] = await db.query<{ dead: number; analyzed: boolean }>(
      `SELECT n_dead_tup::int AS dead, last_analyze IS NOT NULL AS analyzed
       FROM pg_stat_user_tables WHERE relname = 'chat_reservations'`,
      [],
    );
    expect(stats).toEqual({ dead: 0, analyzed: true });
    const [messages] = await db.query<{ reltuples: number }>(
      "SELECT reltuples::int AS reltuples FROM pg_class WHERE relname = 'messages'",
      [],
    );
    expect(messages!.reltuples).toBeGreaterThanOrEqual(120);
    // Nothing left to do right after (on PostgreSQL other connections may still report late).
    if (db.kind === 'pglite') expect(await maintainTables(db)).toEqual({ vacuum: [], analyze: [] });
  });

  it('runs as a background job on PGlite only (PostgreSQL has its autovacuum)', () => {
    const { ctx } = get();
    const names = backgroundJobs(ctx).map((job) => job.name);
    expect(names.includes('table-maintenance')).toBe(ctx.db.kind === 'pglite');
  });
});
