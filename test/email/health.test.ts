import { describe, expect, it } from 'vitest';
import { dueWarning, warnExpiringSecrets } from '../../src/modules/mailboxes/connectors/health.js';
import { secretWarning } from '../../src/modules/mailboxes/service.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addMailbox } from './mailbox-setup.js';

describe('secret expiry warnings (pure)', () => {
  it.each([
    [null, null, null],
    [45, null, null],
    [30, null, 30],
    [29, 30, null],
    [7, 30, 7],
    [3, null, 7],
    [1, 7, 1],
    [0, 1, null],
    [-2, null, 1],
  ])('%s days left, %s warned → %s', (days, warned, due) => {
    expect(dueWarning(days, warned)).toBe(due);
  });

  it.each([
    [null, null],
    [31, null],
    [30, 'secret_expiring'],
    [0, 'secret_expiring'],
    [-1, 'secret_expired'],
  ] as const)('%s days → %s', (days, warning) => {
    expect(secretWarning(days)).toBe(warning);
  });
});

describeApp('secret expiry warnings as webhook events', (get) => {
  it('gives each of the 30/7/1-day warnings once', async () => {
    const { ctx, app } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const hook = await app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: tenant.owner.headers,
      payload: { url: 'https://93.184.216.34/hooks/parley', event_types: ['mailbox.secret_expiring'] },
    });
    expect(hook.statusCode).toBe(201);
    const expires = new Date(Date.now() + 40 * 86_400_000);
    const mailboxId = await addMailbox(app, tenant, bot.id, {
      kind: 'graph',
      name: 'M365',
      address: 'info@contoso.example',
      settings: { tenant_id: 'contoso', client_id: 'app' },
      secrets: { client_secret: 'value' },
      secret_expires_at: expires.toISOString(),
    });
    const events = () =>
      ctx.db.query<{ data: { days_left: number; mailbox_id: string } }>(
        `SELECT data FROM webhook_events WHERE tenant_id = $1 AND type = 'mailbox.secret_expiring' ORDER BY created_at`,
        [tenant.id],
      );
    const at = (daysBefore: number) => new Date(expires.getTime() - daysBefore * 86_400_000 - 60_000);
    await warnExpiringSecrets(ctx, at(35));
    expect(await events()).toHaveLength(0);
    await warnExpiringSecrets(ctx, at(29));
    await warnExpiringSecrets(ctx, at(28));
    expect((await events()).map((e) => e.data.days_left)).toEqual([29]);
    await warnExpiringSecrets(ctx, at(6));
    await warnExpiringSecrets(ctx, at(0.5));
    await warnExpiringSecrets(ctx, at(0.4));
    expect((await events()).map((e) => e.data.days_left)).toEqual([29, 6, 0]);
    expect((await events())[0]!.data.mailbox_id).toBe(mailboxId);
  });
});
