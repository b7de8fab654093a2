import type { Queryable } from '../../db/database.js';
import { badRequest } from '../../http/errors.js';
import * as repo from './repository.js';

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
  const plan = await repo.findPlan(tx, planId);
  if (!plan) throw badRequest(`Unknown plan '${planId}'`, { code: 'plan_unknown', field: 'plan_id' });
  const tenant = await repo.insertTenant(tx, {
    name: input.name,
    industryCode: input.industryCode ?? null,
    quota: input.quota ?? null,
  });
  const trial = plan.is_sandbox || input.trialEndsAt != null;
  const subscription = await repo.insertSubscription(tx, {
    tenant_id: tenant.id,
    plan_id: plan.id,
    status: trial ? 'trial' : 'active',
    trial_start: trial ? new Date() : null,
    trial_ends_at: trial
      ? (input.trialEndsAt ?? new Date(Date.now() + DEFAULT_TRIAL_DAYS * 86400_000))
      : null,
  });
  return { tenant, subscription };
}
