import type { Queryable } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import { findTenantPlan } from '../tenants/index.js';
import { daysOf, messagesRemaining, usageMonth } from './period.js';
import { activityPerBot, activityPerDay, messagesUsed } from './repository.js';
import type { UsageReport } from './schema.js';

/** The tenant's usage of one month: quota, tokens, activity per bot and per day. */
export async function usageReport(
  db: Queryable,
  tenantId: string,
  month: string | undefined,
  now: Date = new Date(),
): Promise<UsageReport> {
  const period = usageMonth(month, now);
  const [plan, used, perDay, perBot] = await Promise.all([
    findTenantPlan(db, tenantId),
    messagesUsed(db, tenantId, period.firstDay),
    activityPerDay(db, tenantId, period.start, period.end),
    activityPerBot(db, tenantId, period.start, period.end),
  ]);
  if (!plan) throw notFound('Tenant');
  const byDay = new Map(perDay.map((row) => [row.day, row]));
  return {
    month: period.month,
    period_start: period.firstDay,
    period_end: period.lastDay,
    plan_id: plan.plan_id,
    subscription_status: plan.subscription_status,
    trial_ends_at: plan.trial_ends_at ? plan.trial_ends_at.toISOString() : null,
    messages_used: used,
    messages_quota: plan.monthly_message_quota,
    messages_remaining: messagesRemaining(plan.monthly_message_quota, used),
    // Every stored message carries its tokens: the month's total is the sum over its days.
    tokens_used: perDay.reduce((sum, day) => sum + day.tokens, 0),
    per_bot: perBot.map(({ bot_id, name, messages, replies, tokens }) => ({
      bot_id,
      name,
      messages,
      replies,
      tokens,
    })),
    per_day: daysOf(period).map((date) => {
      const row = byDay.get(date);
      return { date, messages: row?.messages ?? 0, replies: row?.replies ?? 0, tokens: row?.tokens ?? 0 };
    }),
  };
}
