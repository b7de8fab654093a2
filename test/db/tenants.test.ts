import { expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { memoryCoordination } from '../../src/coordination/index.js';
import { createTenant } from '../../src/modules/tenants/service.js';
import { findTenantPlan } from '../../src/modules/tenants/repository.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant } from '../helpers/factories.js';

describeEachBackend('tenants', (get) => {
  let ctx: AppContext;
  const context = async () =>
    (ctx ??= await createContext(testConfig(), { db: get().db, coordination: memoryCoordination() }));

  it('starts a trial on the sandbox plan and an active subscription otherwise', async () => {
    const { subscription: sandbox } = await get().db.transaction((tx) =>
      createTenant(tx, { name: 'Trial GmbH', plan: 'sandbox' }),
    );
    expect(sandbox.status).toBe('trial');
    expect(sandbox.trial_start).toBeInstanceOf(Date);
    expect(sandbox.trial_ends_at!.getTime()).toBeGreaterThan(Date.now() + 13 * 86400_000);
    const { subscription: paid } = await get().db.transaction((tx) => createTenant(tx, { name: 'Paid AG' }));
    expect(paid.status).toBe('active');
    expect(paid.trial_ends_at).toBeNull();
  });

  it('uses the tenant quota override before the plan quota', async () => {
    const { tenant } = await get().db.transaction((tx) =>
      createTenant(tx, { name: 'Quota', plan: 'starter', quota: 7 }),
    );
    expect((await findTenantPlan(get().db, tenant.id))?.monthly_message_quota).toBe(7);
    const { tenant: plain } = await get().db.transaction((tx) =>
      createTenant(tx, { name: 'Plain', plan: 'starter' }),
    );
    expect((await findTenantPlan(get().db, plain.id))?.monthly_message_quota).toBe(1000);
  });

  it('refuses an unknown plan and writes nothing', async () => {
    const before = await get().db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants');
    await expect(get().db.transaction((tx) => createTenant(tx, { name: 'X', plan: 'gold' }))).rejects.toThrow(
      /Unknown plan/,
    );
    const after = await get().db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('removes everything of a tenant with the tenant', async () => {
    const c = await context();
    const tenant = await buildTenant(c);
    await tenant.bot({ system_prompt: 'Hallo' });
    await get().db.query('DELETE FROM tenants WHERE id = $1', [tenant.id]);
    for (const table of ['users', 'api_keys', 'bots', 'bot_prompt_versions', 'sessions', 'subscriptions']) {
      const rows = await get().db.query(`SELECT 1 FROM ${table} WHERE tenant_id = $1`, [tenant.id]);
      expect(rows, table).toHaveLength(0);
    }
  });
});
