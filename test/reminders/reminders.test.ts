import { expect, it } from 'vitest';
import { calendarDate } from '../../src/modules/reminders/calendar.js';
import { describeApp, startApp } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/db.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

const KEY = 'internal-key-for-tests-0123456789';
const ZONE = 'Europe/Berlin';

/** 10:30 UTC on the Berlin calendar day `days` from today: that Berlin day in summer and winter. */
function berlinDay(days: number): Date {
  const today = calendarDate(new Date(), ZONE);
  const date = new Date(`${today}T10:30:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date;
}

interface DueGroup {
  type: string;
  template: string;
  users: Array<Record<string, unknown> & { tenant_id: string }>;
}

describeApp(
  'archived trial reminders',
  (get) => {
    const headers = { 'x-internal-api-key': KEY };
    const fetchDue = async () => {
      const res = await get().app.inject({ method: 'GET', url: '/api/internal/sandbox-reminders', headers });
      expect(res.statusCode).toBe(200);
      return res.json() as { success: boolean; date: string; reminders: DueGroup[]; total_due: number };
    };
    const groupOf = (body: { reminders: DueGroup[] }, tenantId: string) =>
      body.reminders.find((g) => g.users.some((u) => u.tenant_id === tenantId))?.type;
    const trialTenant = (days: number, plan = 'sandbox') =>
      buildTenant(get().ctx, { plan, trialEndsAt: berlinDay(days) });
    const log = (payload: Record<string, unknown>) =>
      get().app.inject({ method: 'POST', url: '/api/internal/sandbox-reminders/log', headers, payload });

    it('selects sandbox trials ending in 7, 3 and 1 days, catches up a missed 7-day day, and excludes the rest', async () => {
      const in7 = await trialTenant(7);
      const in3 = await trialTenant(3);
      const in1 = await trialTenant(1);
      const in5 = await trialTenant(5);
      const in8 = await trialTenant(8);
      const paidTrial = await trialTenant(7, 'starter');
      const activeSandbox = await trialTenant(3);
      await get().db.query(`UPDATE subscriptions SET status = 'active' WHERE tenant_id = $1`, [
        activeSandbox.id,
      ]);
      const ended = await trialTenant(3);
      await get().db.query(
        `UPDATE subscriptions SET trial_ends_at = now() - interval '1 hour' WHERE tenant_id = $1`,
        [ended.id],
      );
      const noEnd = await trialTenant(3);
      await get().db.query('UPDATE subscriptions SET trial_ends_at = NULL WHERE tenant_id = $1', [noEnd.id]);

      const body = await fetchDue();
      expect(body.success).toBe(true);
      expect(Math.abs(Date.parse(body.date) - Date.now())).toBeLessThan(60_000);
      expect(body.reminders.map((g) => [g.type, g.template])).toEqual([
        ['7d', 'svc_trial_reminder_7d'],
        ['3d', 'svc_trial_reminder_3d'],
        ['1d', 'svc_trial_reminder_1d'],
      ]);
      expect(groupOf(body, in7.id)).toBe('7d');
      expect(groupOf(body, in3.id)).toBe('3d');
      expect(groupOf(body, in1.id)).toBe('1d');
      expect(groupOf(body, in5.id)).toBe('7d');
      for (const excluded of [in8, paidTrial, activeSandbox, ended, noEnd]) {
        expect(groupOf(body, excluded.id)).toBeUndefined();
      }
      expect(body.total_due).toBe(body.reminders.reduce((n, g) => n + g.users.length, 0));
      const user = body.reminders[1]!.users.find((u) => u.tenant_id === in3.id)!;
      expect(user).toMatchObject({
        email: in3.owner.email,
        first_name: 'Test',
        last_name: 'owner',
        phone: '',
        company: '',
        days_remaining: 3,
        days_elapsed: 0,
        trial_ends_at: berlinDay(3).toISOString(),
      });
      expect(user.trial_start).toEqual(expect.any(String));
      const five = body.reminders[0]!.users.find((u) => u.tenant_id === in5.id)!;
      expect(five.days_remaining).toBe(5);
    });

    it('reports the owner, counts days elapsed, and leaves out tenants without an owner', async () => {
      const tenant = await trialTenant(1);
      await get().db.query(`UPDATE subscriptions SET trial_start = $2 WHERE tenant_id = $1`, [
        tenant.id,
        berlinDay(-13),
      ]);
      await get().db.query(`UPDATE users SET phone = '+49 30 1234', company = 'Muster GmbH' WHERE id = $1`, [
        tenant.owner.id,
      ]);
      await tenant.user('admin');
      const orphan = await trialTenant(1);
      await get().db.query('DELETE FROM users WHERE tenant_id = $1', [orphan.id]);
      const body = await fetchDue();
      const users = body.reminders[2]!.users.filter((u) => u.tenant_id === tenant.id);
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({
        email: tenant.owner.email,
        phone: '+49 30 1234',
        company: 'Muster GmbH',
        days_elapsed: 13,
        days_remaining: 1,
      });
      expect(groupOf(body, orphan.id)).toBeUndefined();
    });

    it('excludes a type once it is logged, but not the next type', async () => {
      const soon = await trialTenant(7);
      const later = await trialTenant(3);
      expect(
        (
          await log({ tenant_id: soon.id, reminder_type: '7d', template_name: 'svc_trial_reminder_7d' })
        ).json(),
      ).toEqual({ success: true });
      await log({
        tenant_id: later.id,
        reminder_type: '7d',
        template_name: 'svc_trial_reminder_7d',
        status: 'sent',
      });
      const body = await fetchDue();
      expect(groupOf(body, soon.id)).toBeUndefined();
      expect(groupOf(body, later.id)).toBe('3d');
    });

    it('logs a reminder once per tenant and type, also under 10 concurrent identical calls', async () => {
      const tenant = await trialTenant(3);
      const payload = {
        tenant_id: tenant.id,
        user_email: 'ops@example.test',
        reminder_type: '3d',
        template_name: 'svc_trial_reminder_3d',
        status: 'sent',
        error_message: null,
      };
      const results = await Promise.all(Array.from({ length: 10 }, () => log(payload)));
      expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
      expect(results.every((r) => r.json().success === true)).toBe(true);
      const rows = await get().db.query<Record<string, unknown>>(
        'SELECT user_email, reminder_type, template_name, status, error_message FROM onboarding_reminders WHERE tenant_id = $1',
        [tenant.id],
      );
      expect(rows).toEqual([
        {
          user_email: 'ops@example.test',
          reminder_type: '3d',
          template_name: 'svc_trial_reminder_3d',
          status: 'sent',
          error_message: null,
        },
      ]);
      // A later call with other details is skipped silently as well.
      const again = await log({ ...payload, status: 'error', error_message: 'bounced' });
      expect(again.json()).toEqual({ success: true });
      const [row] = await get().db.query<{ status: string }>(
        'SELECT status FROM onboarding_reminders WHERE tenant_id = $1',
        [tenant.id],
      );
      expect(row!.status).toBe('sent');
    });

    it("records an error status, and the owner's address when user_email is absent", async () => {
      const tenant = await trialTenant(1);
      await log({
        tenant_id: tenant.id,
        reminder_type: '1d',
        template_name: 'svc_trial_reminder_1d',
        status: 'error',
        error_message: 'mailbox full',
      });
      const rows = await get().db.query<Record<string, unknown>>(
        'SELECT user_email, status, error_message, sent_at, created_at FROM onboarding_reminders WHERE tenant_id = $1',
        [tenant.id],
      );
      expect(rows[0]).toMatchObject({
        user_email: tenant.owner.email,
        status: 'error',
        error_message: 'mailbox full',
        sent_at: expect.any(Date),
      });
    });

    it('validates the log body and writes nothing for bad input', async () => {
      const tenant = await trialTenant(3);
      const base = { tenant_id: tenant.id, reminder_type: '3d', template_name: 'svc_trial_reminder_3d' };
      const invalid: Array<Record<string, unknown>> = [
        { reminder_type: '3d', template_name: 't' },
        { ...base, tenant_id: 'not-a-uuid' },
        { ...base, reminder_type: undefined },
        { ...base, reminder_type: '' },
        { ...base, reminder_type: 'x'.repeat(11) },
        { ...base, template_name: 'x'.repeat(101) },
        { ...base, status: 'bounced' },
        { ...base, user_email: 'x'.repeat(250) + '@example.test' },
        { ...base, error_message: 5 },
        { ...base, extra: true },
      ];
      for (const payload of invalid) {
        const res = await log(payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().error).toBe('validation_error');
      }
      const unknownTenant = await log({ ...base, tenant_id: '00000000-0000-4000-8000-000000000000' });
      expect(unknownTenant.statusCode).toBe(404);
      const rows = await get().db.query('SELECT 1 FROM onboarding_reminders WHERE tenant_id = $1', [
        tenant.id,
      ]);
      expect(rows).toHaveLength(0);
    });

    it('accepts a new reminder type as a free string', async () => {
      const tenant = await trialTenant(3);
      expect(
        (await log({ tenant_id: tenant.id, reminder_type: '14d', template_name: 'svc_trial_reminder_14d' }))
          .statusCode,
      ).toBe(200);
      expect(groupOf(await fetchDue(), tenant.id)).toBe('3d');
    });

    it('answers 401 for a missing or wrong X-Internal-API-Key, also for a tenant API key', async () => {
      const tenant: TenantFixture = await trialTenant(3);
      for (const h of [
        {},
        { 'x-internal-api-key': '' },
        { 'x-internal-api-key': KEY.slice(0, -1) + 'X' },
        { 'x-internal-api-key': KEY + 'X' },
        { authorization: `Bearer ${KEY}` },
        tenant.keyHeaders,
      ]) {
        const get1 = await get().app.inject({
          method: 'GET',
          url: '/api/internal/sandbox-reminders',
          headers: h,
        });
        expect(get1.statusCode).toBe(401);
        expect(get1.json().error).toBe('unauthorized');
        const post1 = await get().app.inject({
          method: 'POST',
          url: '/api/internal/sandbox-reminders/log',
          headers: h,
          payload: { tenant_id: tenant.id, reminder_type: '3d', template_name: 't' },
        });
        expect(post1.statusCode).toBe(401);
      }
      const rows = await get().db.query('SELECT 1 FROM onboarding_reminders WHERE tenant_id = $1', [
        tenant.id,
      ]);
      expect(rows).toHaveLength(0);
    });
  },
  { env: { INTERNAL_API_KEY: KEY, REMINDER_TIME_ZONE: ZONE } },
);

describeApp('archived trial reminders without INTERNAL_API_KEY', (get) => {
  it('are switched off and answer like an unknown route', async () => {
    const unknown = await get().app.inject({ method: 'GET', url: '/api/internal/unknown-route' });
    for (const [method, url] of [
      ['GET', '/api/internal/sandbox-reminders'],
      ['POST', '/api/internal/sandbox-reminders/log'],
    ] as const) {
      const res = await get().app.inject({
        method,
        url,
        headers: { 'x-internal-api-key': 'anything' },
        ...(method === 'POST' ? { payload: {} } : {}),
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe(unknown.json().error);
      expect(res.json().message).toBe(`Route ${method} ${url} not found`);
    }
  });
});

it('refuses to start with an unknown REMINDER_TIME_ZONE', async () => {
  const database = await openTestDatabase('pglite');
  try {
    await expect(startApp(database, { env: { REMINDER_TIME_ZONE: 'Mars/Olympus_Mons' } })).rejects.toThrow(
      /REMINDER_TIME_ZONE/,
    );
  } finally {
    await database.close();
  }
});
