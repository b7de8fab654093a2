import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { badRequest } from '../../http/errors.js';

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

export interface CreateTenantInput {
  name: string;
  plan?: string;
  trialEndsAt?: Date | null;
  quota?: number | null;
  industryCode?: string | null;
}

const DEFAULT_TRIAL_DAYS = 14;

/**
 * Creates a tenant with its subscription. A sandbox plan, or an explicit trial end, starts a
 * trial (`trial_start` now); the sandbox trial lasts 14 days unless told otherwise.
 */
export async function createTenant(tx: Queryable, input: CreateTenantInput) {
  const planId = input.plan ?? 'starter';
  const plan = await queryOne<{ id: string; is_sandbox: boolean }>(
    tx,
    'SELECT id, is_sandbox FROM plans WHERE id = $1',
    [planId],
  );
  if (!plan) throw badRequest(`Unknown plan '${planId}'`, { code: 'plan_unknown', field: 'plan_id' });
  const tenant = (await queryOne<TenantRow>(
    tx,
    `INSERT INTO tenants (name, industry_code, message_quota_override) VALUES ($1, $2, $3) RETURNING *`,
    [input.name, input.industryCode ?? null, input.quota ?? null],
  ))!;
  const trial = plan.is_sandbox || input.trialEndsAt != null;
  const trialStart = trial ? new Date() : null;
  const trialEndsAt = trial
    ? (input.trialEndsAt ?? new Date(Date.now() + DEFAULT_TRIAL_DAYS * 86400_000))
    : null;
  const subscription = (await queryOne<SubscriptionRow>(
    tx,
    `INSERT INTO subscriptions (tenant_id, plan_id, status, trial_start, trial_ends_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [tenant.id, plan.id, trial ? 'trial' : 'active', trialStart, trialEndsAt],
  ))!;
  return { tenant, subscription };
}

export function findTenant(db: Queryable, tenantId: string): Promise<TenantRow | undefined> {
  return queryOne<TenantRow>(db, 'SELECT * FROM tenants WHERE id = $1', [tenantId]);
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

export async function findTenantPlan(db: Queryable, tenantId: string): Promise<TenantPlan | undefined> {
  return queryOne<TenantPlan>(
    db,
    `SELECT p.id AS plan_id, p.is_sandbox, p.api_access, s.status AS subscription_status, s.trial_ends_at,
            coalesce(t.message_quota_override, p.monthly_message_quota) AS monthly_message_quota
     FROM tenants t JOIN subscriptions s ON s.tenant_id = t.id JOIN plans p ON p.id = s.plan_id
     WHERE t.id = $1`,
    [tenantId],
  );
}
