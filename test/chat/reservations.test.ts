import { expect, it } from 'vitest';
import { quotaPeriod } from '../../src/modules/chat/quota.js';
import { admitChat, releaseMessage, sweepExpiredReservations } from '../../src/modules/chat/repository.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { ledgerOf } from './ledger.js';

const inAMinute = () => new Date(Date.now() + 60_000);

describeApp('quota reservations', (get) => {
  it('a release counts once however often it runs (retries after an outage)', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx, { quota: 5 });
    const bot = await tenant.bot();
    const admitted = await admitChat(db, tenant.id, bot.id, null, quotaPeriod(), 60, inAMinute());
    if (admitted.kind !== 'admitted') throw new Error(admitted.kind);
    expect(await ledgerOf(db, tenant.id)).toMatchObject({ counter: 1, reservations: 1 });
    await releaseMessage(db, admitted.reservationId);
    await releaseMessage(db, admitted.reservationId);
    expect(await ledgerOf(db, tenant.id)).toMatchObject({ counter: 0, reservations: 0 });
  });

  it('the sweep gives back reservations whose lease ran out, and only those', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx, { quota: 5 });
    const bot = await tenant.bot();
    await admitChat(db, tenant.id, bot.id, null, quotaPeriod(), 0, inAMinute());
    await admitChat(db, tenant.id, bot.id, null, quotaPeriod(), 600, inAMinute());
    expect(await ledgerOf(db, tenant.id)).toMatchObject({ counter: 2, reservations: 2 });
    expect(await sweepExpiredReservations(db)).toBeGreaterThanOrEqual(1);
    expect(await ledgerOf(db, tenant.id)).toMatchObject({ counter: 1, reservations: 1 });
    await sweepExpiredReservations(db);
    expect(await ledgerOf(db, tenant.id)).toMatchObject({ counter: 1, reservations: 1 });
  });

  it('a statement the database runs only after the service stopped waiting reserves nothing', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx, { quota: 5 });
    const bot = await tenant.bot();
    const late = await admitChat(db, tenant.id, bot.id, null, quotaPeriod(), 60, new Date(Date.now() - 1000));
    expect(late.kind).not.toBe('admitted');
    expect(await ledgerOf(db, tenant.id)).toMatchObject({ counter: 0, reservations: 0 });
  });
});
