import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeApp, startApp, stopApp, type TestApp } from '../helpers/app.js';
import { BACKENDS, openTestDatabase } from '../helpers/db.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { FakeStripe, WEBHOOK_SECRET } from './fake-stripe.js';
import { bookOk, buildContact, createEvent, getEvent, setStatus, type BookingJson } from './fixtures.js';

function signed(payload: object, options: { secret?: string; timestamp?: number } = {}) {
  const body = JSON.stringify(payload);
  const header = Stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
  });
  return { body, header };
}

let eventCounter = 0;
function checkoutCompleted(booking: { id: string }, tenantId: string, amountCents: number) {
  eventCounter += 1;
  return {
    id: `evt_test_${Date.now()}_${eventCounter}`,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: `cs_test_${eventCounter}`,
        object: 'checkout.session',
        client_reference_id: booking.id,
        payment_status: 'paid',
        payment_intent: `pi_test_${eventCounter}`,
        amount_total: amountCents,
        currency: 'eur',
        metadata: { tenant_id: tenantId },
      },
    },
  };
}

for (const backend of BACKENDS) {
  describe(`[${backend}] payments with Stripe`, () => {
    const stripe = new FakeStripe();
    let t: TestApp;
    beforeAll(async () => {
      await stripe.start();
      t = await startApp(await openTestDatabase(backend), { env: stripe.env() });
    });
    afterAll(async () => {
      await stopApp(t);
      await t.database.close();
      await stripe.stop();
    });

    const deliver = (body: string, header?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/webhooks/stripe',
        headers: { 'content-type': 'application/json', ...(header ? { 'stripe-signature': header } : {}) },
        payload: body,
      });

    async function paidEventWithBooking(tenant: TenantFixture, fields: Record<string, unknown>) {
      const event = await createEvent(t.app, tenant, { capacity_total: 5, ...fields }, 'selling');
      const booking = await bookOk(t.app, tenant, event.id, (await buildContact(t.ctx, tenant.id)).id);
      return { event, booking };
    }

    it('creates a payment link at the provider when a paid event starts selling', async () => {
      const tenant = await buildTenant(t.ctx);
      const draft = await createEvent(t.app, tenant, {
        title: 'Töpferkurs',
        price: 25,
        payment_model: 'full_payment',
      });
      const before = stripe.linkCreations().length;
      const selling = await setStatus(t.app, tenant, draft.id, 'selling');
      expect(selling.status).toBe('selling');
      expect(selling.provider_payment_link).toMatch(/^https:\/\/buy\.stripe\.test\/plink_test_\d+$/);
      const calls = stripe.linkCreations();
      expect(calls).toHaveLength(before + 1);
      const call = calls[calls.length - 1]!;
      expect(call.headers.authorization).toBe('Bearer sk_test_fake_key');
      expect(call.headers['idempotency-key']).toContain(draft.id);
      expect(Object.fromEntries(call.params)).toMatchObject({
        'line_items[0][quantity]': '1',
        'line_items[0][price_data][currency]': 'eur',
        'line_items[0][price_data][unit_amount]': '2500',
        'line_items[0][price_data][product_data][name]': 'Töpferkurs',
        'metadata[tenant_id]': tenant.id,
        'metadata[event_id]': draft.id,
        'payment_intent_data[metadata][event_id]': draft.id,
      });
      // The secret key never reaches a response.
      expect(JSON.stringify(selling)).not.toContain('sk_test');
    });

    it('charges the deposit for deposit events and nothing through the provider for other models', async () => {
      const tenant = await buildTenant(t.ctx);
      await createEvent(
        t.app,
        tenant,
        { price: 99.9, payment_model: 'deposit', deposit_amount: 19.99 },
        'selling',
      );
      const last = stripe.linkCreations().at(-1)!;
      expect(last.params.get('line_items[0][price_data][unit_amount]')).toBe('1999');
      const count = stripe.linkCreations().length;
      const free = await createEvent(t.app, tenant, {}, 'selling');
      const external = await createEvent(
        t.app,
        tenant,
        { price: 10, payment_model: 'external_link', external_payment_url: 'https://pay.example/kurs' },
        'selling',
      );
      expect(stripe.linkCreations()).toHaveLength(count);
      expect(free.provider_payment_link).toBeNull();
      const booking = await bookOk(t.app, tenant, external.id, (await buildContact(t.ctx, tenant.id)).id);
      expect(booking).toMatchObject({
        payment_status: 'not_required',
        payment_url: 'https://pay.example/kurs',
      });
    });

    it('ties each paid booking to the link and asks waitlist bookings to pay once they move up', async () => {
      const tenant = await buildTenant(t.ctx);
      const event = await createEvent(
        t.app,
        tenant,
        { capacity_total: 1, price: 40, payment_model: 'full_payment' },
        'selling',
      );
      const first = await bookOk(t.app, tenant, event.id, (await buildContact(t.ctx, tenant.id)).id);
      expect(first).toMatchObject({ status: 'confirmed', payment_status: 'pending', payment_amount: 40 });
      expect(first.payment_url).toBe(`${event.provider_payment_link}?client_reference_id=${first.id}`);
      const second = await bookOk(t.app, tenant, event.id, (await buildContact(t.ctx, tenant.id)).id);
      expect(second).toMatchObject({ status: 'waitlist', payment_status: 'not_required', payment_url: null });
      const res = await t.app.inject({
        method: 'DELETE',
        url: `/api/events/${event.id}/bookings/${first.id}`,
        headers: tenant.owner.headers,
      });
      const promoted = res.json<{ promoted: BookingJson[] }>().promoted[0]!;
      expect(promoted).toMatchObject({ id: second.id, payment_status: 'pending', payment_amount: 40 });
      expect(promoted.payment_url).toContain(`client_reference_id=${second.id}`);
      expect((await getEvent(t.app, tenant, event.id)).statistics).toMatchObject({ amount_pending: 40 });
    });

    it('marks a booking paid from a signed webhook, once for repeated deliveries', async () => {
      const tenant = await buildTenant(t.ctx);
      const { event, booking } = await paidEventWithBooking(tenant, {
        price: 30,
        payment_model: 'full_payment',
      });
      const payload = checkoutCompleted(booking, tenant.id, 3000);
      const { body, header } = signed(payload);
      const first = await deliver(body, header);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json()).toEqual({ received: true, result: 'processed' });
      const row = await t.db.query<{ payment_status: string; provider_payment_intent_id: string }>(
        'SELECT payment_status, provider_payment_intent_id FROM event_bookings WHERE id = $1',
        [booking.id],
      );
      expect(row[0]).toEqual({
        payment_status: 'paid',
        provider_payment_intent_id: payload.data.object.payment_intent,
      });

      const replay = await deliver(body, header);
      expect(replay.json()).toEqual({ received: true, result: 'duplicate' });
      const notes = await t.db.query(
        `SELECT 1 FROM notifications WHERE booking_id = $1 AND type = 'payment.succeeded'`,
        [booking.id],
      );
      expect(notes).toHaveLength(1);
      expect((await getEvent(t.app, tenant, event.id)).statistics).toMatchObject({
        amount_paid: 30,
        amount_pending: 0,
      });

      // A full refund at the provider marks the booking refunded.
      const refund = signed({
        id: `evt_refund_${booking.id}`,
        object: 'event',
        type: 'charge.refunded',
        data: {
          object: {
            id: 'ch_1',
            object: 'charge',
            refunded: true,
            payment_intent: payload.data.object.payment_intent,
          },
        },
      });
      expect((await deliver(refund.body, refund.header)).json().result).toBe('processed');
      expect((await getEvent(t.app, tenant, event.id)).statistics).toMatchObject({
        amount_paid: 0,
        amount_refunded: 30,
      });
    });

    it('refuses deliveries with a wrong, missing or stale signature and changes nothing', async () => {
      const tenant = await buildTenant(t.ctx);
      const { booking } = await paidEventWithBooking(tenant, { price: 30, payment_model: 'full_payment' });
      const payload = checkoutCompleted(booking, tenant.id, 3000);
      const wrongSecret = signed(payload, { secret: 'whsec_someone_else' });
      const stale = signed(payload, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
      const valid = signed(payload);
      const tampered = valid.body.replace('"paid"', '"paid" ');
      for (const [body, header] of [
        [wrongSecret.body, wrongSecret.header],
        [stale.body, stale.header],
        [valid.body, undefined],
        [tampered, valid.header],
        [valid.body, 't=1,v1=deadbeef'],
      ] as const) {
        const res = await deliver(body, header);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('validation_error');
      }
      const row = await t.db.query<{ payment_status: string }>(
        'SELECT payment_status FROM event_bookings WHERE id = $1',
        [booking.id],
      );
      expect(row[0]!.payment_status).toBe('pending');
    });

    it("ignores sessions for unknown bookings and for another tenant's link", async () => {
      const tenant = await buildTenant(t.ctx);
      const other = await buildTenant(t.ctx);
      const { booking } = await paidEventWithBooking(tenant, { price: 30, payment_model: 'full_payment' });
      const foreign = signed(checkoutCompleted(booking, other.id, 3000));
      expect((await deliver(foreign.body, foreign.header)).json().result).toBe('ignored');
      const unknown = signed(checkoutCompleted({ id: '00000000-0000-4000-8000-000000000000' }, tenant.id, 1));
      expect((await deliver(unknown.body, unknown.header)).json().result).toBe('ignored');
      const other_type = signed({
        id: 'evt_x',
        object: 'event',
        type: 'customer.created',
        data: { object: {} },
      });
      expect((await deliver(other_type.body, other_type.header)).json().result).toBe('ignored');
      const row = await t.db.query<{ payment_status: string }>(
        'SELECT payment_status FROM event_bookings WHERE id = $1',
        [booking.id],
      );
      expect(row[0]!.payment_status).toBe('pending');
    });

    it('deactivates the link when the event ends and answers 503 when the provider fails', async () => {
      const tenant = await buildTenant(t.ctx);
      const event = await createEvent(t.app, tenant, { price: 15, payment_model: 'full_payment' }, 'selling');
      const linkId = event.provider_payment_link!.split('/').pop()!;
      await setStatus(t.app, tenant, event.id, 'completed');
      const update = stripe.requests.find((r) => r.path === `/v1/payment_links/${linkId}`);
      expect(update?.params.get('active')).toBe('false');

      const draft = await createEvent(t.app, tenant, { price: 15, payment_model: 'full_payment' });
      stripe.failures = 10;
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/events/${draft.id}/status`,
        headers: tenant.owner.headers,
        payload: { status: 'selling' },
      });
      stripe.failures = 0;
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: 'service_unavailable' });
      expect(await getEvent(t.app, tenant, draft.id)).toMatchObject({
        status: 'draft',
        provider_payment_link: null,
      });
      // Once the provider answers again, the same request succeeds.
      expect((await setStatus(t.app, tenant, draft.id, 'selling')).provider_payment_link).not.toBeNull();
    });
  });
}

describeApp('payments without a provider', (get) => {
  it('refuses to start selling a paid event with a clear 409, and free events sell', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    for (const fields of [
      { price: 20, payment_model: 'full_payment' },
      { price: 20, payment_model: 'deposit', deposit_amount: 5 },
    ]) {
      const draft = await createEvent(app, tenant, fields);
      const res = await app.inject({
        method: 'PATCH',
        url: `/api/events/${draft.id}/status`,
        headers: tenant.owner.headers,
        payload: { status: 'selling' },
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toContain('no payment provider is configured');
      expect((await getEvent(app, tenant, draft.id)).status).toBe('draft');
    }
    expect((await createEvent(app, tenant, {}, 'selling')).status).toBe('selling');
  });

  it('answers 503 on the Stripe webhook while no webhook secret is configured', async () => {
    const res = await get().app.inject({
      method: 'POST',
      url: '/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(503);
  });
});
