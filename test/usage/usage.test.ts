import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { seedConversation } from '../conversations/seed.js';

function thisMonth(): { month: string; firstDay: string } {
  const now = new Date();
  const firstDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
  return { month: firstDay.slice(0, 7), firstDay };
}

interface DayBody {
  date: string;
  messages: number;
  replies: number;
  tokens: number;
}

describeApp('/api/usage', (get) => {
  const fetch = (url: string, headers: Record<string, string>) =>
    get().app.inject({ method: 'GET', url, headers });

  it('reports quota, tokens and activity per bot and per day for the month', async () => {
    const tenant = await buildTenant(get().ctx, { plan: 'starter' });
    const other = await buildTenant(get().ctx);
    const busy = await tenant.bot({ name: 'Busy' });
    const quiet = await tenant.bot({ name: 'Quiet' });
    const foreign = await other.bot();
    await get().db.query(
      `INSERT INTO usage_counters (tenant_id, period, messages_used) VALUES ($1, '2026-03-01', 42)`,
      [tenant.id],
    );
    await get().db.query(
      `INSERT INTO usage_counters (tenant_id, period, messages_used) VALUES ($1, '2026-03-01', 999)`,
      [other.id],
    );
    // 2 user + 2 assistant on 3 March, 1 user on 31 March, one message in April (outside the month).
    await seedConversation(get().db, tenant.id, busy.id, {
      messages: 4,
      messagesAt: new Date('2026-03-03T10:00:00Z'),
      tokensPerMessage: 25,
    });
    await seedConversation(get().db, tenant.id, busy.id, {
      messages: 1,
      messagesAt: new Date('2026-03-31T23:59:00Z'),
      tokensPerMessage: 5,
    });
    await seedConversation(get().db, tenant.id, quiet.id, {
      messages: 1,
      messagesAt: new Date('2026-04-01T00:00:00Z'),
    });
    await seedConversation(get().db, other.id, foreign.id, {
      messages: 6,
      messagesAt: new Date('2026-03-03T10:00:00Z'),
    });

    const res = await fetch('/api/usage?month=2026-03', tenant.owner.headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      month: '2026-03',
      period_start: '2026-03-01',
      period_end: '2026-03-31',
      plan_id: 'starter',
      messages_used: 42,
      messages_quota: 1000,
      messages_remaining: 958,
      // The month's messages: 4 × 25 on 3 March, 5 on 31 March (April's and other tenants' not).
      tokens_used: 105,
    });
    expect(body.per_bot).toEqual([
      { bot_id: busy.id, name: 'Busy', messages: 3, replies: 2, tokens: 105 },
      { bot_id: quiet.id, name: 'Quiet', messages: 0, replies: 0, tokens: 0 },
    ]);
    expect(body.per_day).toHaveLength(31);
    const active = body.per_day.filter((d: DayBody) => d.messages + d.replies > 0);
    expect(active).toEqual([
      { date: '2026-03-03', messages: 2, replies: 2, tokens: 100 },
      { date: '2026-03-31', messages: 1, replies: 0, tokens: 5 },
    ]);
  });

  it('defaults to the current month, reports zero without activity and null remaining without a quota', async () => {
    const tenant = await buildTenant(get().ctx, { plan: 'enterprise' });
    const res = await fetch('/api/usage', tenant.owner.headers);
    expect(res.statusCode).toBe(200);
    const { month, firstDay } = thisMonth();
    expect(res.json()).toMatchObject({
      month,
      period_start: firstDay,
      messages_used: 0,
      messages_quota: null,
      messages_remaining: null,
      tokens_used: 0,
      per_bot: [],
    });
  });

  it('names the subscription state and the trial end (null without a trial)', async () => {
    const trialEnd = new Date(Date.now() + 5 * 86400_000);
    const trial = await buildTenant(get().ctx, { plan: 'sandbox', trialEndsAt: trialEnd });
    const res = await fetch('/api/usage', trial.owner.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      plan_id: 'sandbox',
      subscription_status: 'trial',
      trial_ends_at: trialEnd.toISOString(),
    });
    const paying = await buildTenant(get().ctx, { plan: 'starter' });
    expect((await fetch('/api/usage', paying.owner.headers)).json()).toMatchObject({
      plan_id: 'starter',
      subscription_status: 'active',
      trial_ends_at: null,
    });
  });

  it('uses the tenant quota override and never reports a negative remainder', async () => {
    const tenant = await buildTenant(get().ctx, { plan: 'starter', quota: 10 });
    const { firstDay } = thisMonth();
    await get().db.query(
      `INSERT INTO usage_counters (tenant_id, period, messages_used) VALUES ($1, $2, 12)`,
      [tenant.id, firstDay],
    );
    const res = await fetch('/api/usage', tenant.owner.headers);
    expect(res.json()).toMatchObject({ messages_used: 12, messages_quota: 10, messages_remaining: 0 });
  });

  it('refuses a malformed month and unknown parameters', async () => {
    const tenant = await buildTenant(get().ctx);
    for (const query of ['month=2026-13', 'month=2026-5', 'bot=1']) {
      const res = await fetch(`/api/usage?${query}`, tenant.owner.headers);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('validation_error');
    }
  });

  it('needs a session (401), is open to every role (all hold usage:view) and not to API keys', async () => {
    const tenant = await buildTenant(get().ctx);
    expect((await fetch('/api/usage', {})).statusCode).toBe(401);
    expect((await fetch('/api/usage', tenant.keyHeaders)).statusCode).toBe(401);
    const viewer = await tenant.user('viewer');
    expect((await fetch('/api/usage', viewer.headers)).statusCode).toBe(200);
  });
});
