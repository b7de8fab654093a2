import type { Database } from '../../db/database.js';
import { badRequest, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { REMINDER_TYPES, calendarDate, daysBetween, reminderTypeFor } from './calendar.js';
import { findOwnerEmail, findTrialCandidates, insertReminderLog, type TrialCandidate } from './repository.js';

export interface DueUser {
  email: string;
  first_name: string;
  last_name: string;
  phone: string;
  company: string;
  tenant_id: string;
  trial_start: string | null;
  trial_ends_at: string;
  days_elapsed: number;
  days_remaining: number;
}

export interface DueReminders {
  success: true;
  date: string;
  reminders: { type: string; template: string; users: DueUser[] }[];
  total_due: number;
}

/** No window reaches further than 7 calendar days; two more days cover any time-zone offset. */
const HORIZON_MS = 9 * 86400_000;

function dueUser(candidate: TrialCandidate, today: string, timeZone: string, daysRemaining: number): DueUser {
  return {
    email: candidate.email,
    // Templates fill these in as text; an unknown value is an empty string, not "null".
    first_name: candidate.first_name ?? '',
    last_name: candidate.last_name ?? '',
    phone: candidate.phone ?? '',
    company: candidate.company ?? '',
    tenant_id: candidate.tenant_id,
    trial_start: candidate.trial_start ? candidate.trial_start.toISOString() : null,
    trial_ends_at: candidate.trial_ends_at.toISOString(),
    days_elapsed: candidate.trial_start
      ? Math.max(0, daysBetween(calendarDate(candidate.trial_start, timeZone), today))
      : 0,
    days_remaining: daysRemaining,
  };
}

/** The sandbox owners due for a reminder today, grouped by type in the order 7d, 3d, 1d. */
export async function dueReminders(
  db: Database,
  options: { now: Date; timeZone: string },
): Promise<DueReminders> {
  const { now, timeZone } = options;
  const today = calendarDate(now, timeZone);
  const candidates = await findTrialCandidates(db, now, new Date(now.getTime() + HORIZON_MS));
  const groups = REMINDER_TYPES.map((r) => ({ type: r.type, template: r.template, users: [] as DueUser[] }));
  for (const candidate of candidates) {
    const daysRemaining = daysBetween(today, calendarDate(candidate.trial_ends_at, timeZone));
    const type = reminderTypeFor(daysRemaining);
    if (!type || candidate.logged_types.includes(type.type)) continue;
    groups.find((g) => g.type === type.type)!.users.push(dueUser(candidate, today, timeZone, daysRemaining));
  }
  return {
    success: true,
    date: now.toISOString(),
    reminders: groups,
    total_due: groups.reduce((sum, g) => sum + g.users.length, 0),
  };
}

/**
 * Logs a sent (or failed) reminder. At most one record per (tenant, type): a repeated call,
 * also a concurrent one, is skipped silently by the unique constraint. Without user_email the
 * tenant owner's address is recorded.
 */
export async function logReminder(
  db: Database,
  input: {
    tenantId: string;
    userEmail?: string;
    reminderType: string;
    templateName: string;
    status?: 'sent' | 'error';
    errorMessage?: string | null;
  },
): Promise<void> {
  const tenant = isUuid(input.tenantId) ? await findOwnerEmail(db, input.tenantId) : undefined;
  if (!tenant) throw notFound('Tenant');
  const userEmail = input.userEmail ?? tenant.email;
  if (!userEmail)
    throw badRequest("Field 'user_email' is required: the tenant has no owner to take it from", {
      code: 'field_required',
      field: 'user_email',
    });
  await insertReminderLog(db, input.tenantId, {
    userEmail,
    reminderType: input.reminderType,
    templateName: input.templateName,
    status: input.status ?? 'sent',
    errorMessage: input.errorMessage ?? null,
  });
}
