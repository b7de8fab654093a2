import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';

export interface TenantRow {
  id: string;
  name: string;
  industry_code: string | null;
  message_quota_override: number | null;
  created_at: Date;
}

export interface SubscriptionRow {
  id: string;
  tenant_id: string;
  plan_id: string;
  status: 'trial' | 'active' | 'past_due' | 'cancelled';
  trial_start: Date | null;
  trial_ends_at: Date | null;
}

export interface TenantPlan {
  plan_id: string;
  is_sandbox: boolean;
  api_access: boolean;
  /** Effective monthly quota: the tenant's override, else the plan's; null means unlimited. */
  monthly_message_quota: number | null;
  subscription_status: SubscriptionRow['status'];
  /** End of the trial; null when the subscription never had one. */
  trial_ends_at: Date | null;
}

export function findPlan(
  db: Queryable,
  planId: string,
): Promise<{ id: string; is_sandbox: boolean } | undefined> {
  return queryOne<{ id: string; is_sandbox: boolean }>(db, 'SELECT id, is_sandbox FROM plans WHERE id = $1', [
    planId,
  ]);
}

export async function insertTenant(
  db: Queryable,
  tenant: { name: string; industryCode: string | null; quota: number | null },
): Promise<TenantRow> {
  return (await queryOne<TenantRow>(
    db,
    `INSERT INTO tenants (name, industry_code, message_quota_override) VALUES ($1, $2, $3) RETURNING *`,
    [tenant.name, tenant.industryCode, tenant.quota],
  ))!;
}

export async function insertSubscription(
  db: Queryable,
  subscription: Pick<SubscriptionRow, 'tenant_id' | 'plan_id' | 'status' | 'trial_start' | 'trial_ends_at'>,
): Promise<SubscriptionRow> {
  return (await queryOne<SubscriptionRow>(
    db,
    `INSERT INTO subscriptions (tenant_id, plan_id, status, trial_start, trial_ends_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [
      subscription.tenant_id,
      subscription.plan_id,
      subscription.status,
      subscription.trial_start,
      subscription.trial_ends_at,
    ],
  ))!;
}

/** Locks the tenant row for the rest of the transaction (serialises per-tenant limits). */
export async function lockTenant(db: Queryable, tenantId: string): Promise<void> {
  await db.query('SELECT id FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
}

export function findTenant(db: Queryable, tenantId: string): Promise<TenantRow | undefined> {
  return queryOne<TenantRow>(db, 'SELECT * FROM tenants WHERE id = $1', [tenantId]);
}

export function findTenantPlan(db: Queryable, tenantId: string): Promise<TenantPlan | undefined> {
  return queryOne<TenantPlan>(
    db,
    `SELECT p.id AS plan_id, p.is_sandbox, p.api_access, s.status AS subscription_status, s.trial_ends_at,
            coalesce(t.message_quota_override, p.monthly_message_quota) AS monthly_message_quota
     FROM tenants t JOIN subscriptions s ON s.tenant_id = t.id JOIN plans p ON p.id = s.plan_id
     WHERE t.id = $1`,
    [tenantId],
  );
}

/** The tenant's typo vocabulary changed: its version (the key of cached word resolutions) grows. */
export async function bumpKnowledgeVocabulary(tx: Queryable, tenantId: string): Promise<void> {
  await tx.query(
    'UPDATE tenants SET knowledge_vocabulary_version = knowledge_vocabulary_version + 1 WHERE id = $1',
    [tenantId],
  );
}
