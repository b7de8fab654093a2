/**
 * Mailbox health beyond a single sync: secret-expiry warnings 30, 7 and 1 days ahead, each
 * given once (a webhook event `mailbox.secret_expiring`; the dashboard and the metrics read
 * the expiry directly).
 */
import type { AppContext } from '../../../shared/context.js';
import { EXPIRY_WARNING_DAYS, daysUntil } from '../../mailboxes/service.js';
import { claimExpiryWarning, mailboxesWithExpiringSecrets } from '../../mailboxes/repository.js';
import { enqueueEvent } from '../../webhooks/index.js';

/**
 * The warning due now: the smallest threshold the days left have reached, when it is smaller
 * than the last one given (null: none due).
 */
export function dueWarning(daysLeft: number | null, warned: number | null): number | null {
  if (daysLeft === null) return null;
  const reached = [...EXPIRY_WARNING_DAYS].reverse().find((threshold) => daysLeft <= threshold) ?? null;
  if (reached === null) return null;
  return warned === null || reached < warned ? reached : null;
}

/** Gives the secret-expiry warnings that are due; returns how many were given. */
export async function warnExpiringSecrets(ctx: AppContext, now = new Date()): Promise<number> {
  const rows = await mailboxesWithExpiringSecrets(ctx.db, now);
  let given = 0;
  for (const row of rows) {
    const days = daysUntil(row.secret_expires_at, now);
    const threshold = dueWarning(days, row.expiry_warned_days);
    if (threshold === null) continue;
    await ctx.db.transaction(async (tx) => {
      // The conditional update settles a race between instances: one of them gives the warning.
      if (!(await claimExpiryWarning(tx, row.id, threshold))) return;
      await enqueueEvent(tx, row.tenant_id, 'mailbox.secret_expiring', {
        mailbox_id: row.id,
        bot_id: row.bot_id,
        kind: row.kind,
        address: row.address,
        secret_expires_at: row.secret_expires_at.toISOString(),
        days_left: days,
      });
      given += 1;
    });
  }
  return given;
}
