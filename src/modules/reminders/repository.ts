import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';

export interface TrialCandidate {
  tenant_id: string;
  trial_start: Date | null;
  trial_ends_at: Date;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  company: string | null;
  logged_types: string[];
}

/**
 * Sandbox tenants in a running trial that ends after `now` and before `horizon`, with their
 * owner (the earliest-created active owner) and the reminder types already logged. A tenant
 * without an owner has nobody to write to and is left out.
 */
export function findTrialCandidates(db: Queryable, now: Date, horizon: Date): Promise<TrialCandidate[]> {
  return db.query<TrialCandidate>(
    `SELECT t.id AS tenant_id, s.trial_start, s.trial_ends_at,
            u.email, u.first_name, u.last_name, u.phone, u.company,
            ARRAY(SELECT r.reminder_type::text FROM onboarding_reminders r WHERE r.tenant_id = t.id) AS logged_types
     FROM tenants t
     JOIN subscriptions s ON s.tenant_id = t.id
     JOIN plans p ON p.id = s.plan_id
     JOIN LATERAL (
       SELECT email, first_name, last_name, phone, company FROM users
       WHERE users.tenant_id = t.id AND role = 'owner' AND is_active
       ORDER BY created_at, id LIMIT 1
     ) u ON true
     WHERE p.is_sandbox AND s.status = 'trial'
       AND s.trial_ends_at IS NOT NULL AND s.trial_ends_at > $1 AND s.trial_ends_at < $2
     ORDER BY s.trial_ends_at, t.id`,
    [now, horizon],
  );
}

export function findOwnerEmail(
  db: Queryable,
  tenantId: string,
): Promise<{ email: string | null } | undefined> {
  return queryOne<{ email: string | null }>(
    db,
    `SELECT (SELECT email FROM users WHERE users.tenant_id = t.id AND role = 'owner' AND is_active
             ORDER BY created_at, id LIMIT 1) AS email
     FROM tenants t WHERE t.id = $1`,
    [tenantId],
  );
}

/** Inserts the log record unless one exists for (tenant, type); true when inserted. */
export async function insertReminderLog(
  db: Queryable,
  tenantId: string,
  record: {
    userEmail: string;
    reminderType: string;
    templateName: string;
    status: 'sent' | 'error';
    errorMessage: string | null;
  },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO onboarding_reminders (tenant_id, user_email, reminder_type, template_name, status, error_message)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (tenant_id, reminder_type) DO NOTHING
     RETURNING id`,
    [
      tenantId,
      record.userEmail,
      record.reminderType,
      record.templateName,
      record.status,
      record.errorMessage,
    ],
  );
  return rows.length > 0;
}
