import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { useModel } from '../chat/fixtures.js';
import { createEvent } from '../events/fixtures.js';
import { WordModel } from '../voice/helpers.js';
import { startFakeProviders, type FakeProviders } from './fake-providers.js';
import { metaPayload, postMeta, textMessage } from './meta-helpers.js';
import { ACCESS_TOKEN, APP_SECRET, WHATSAPP_CONNECTION, addConnection } from './setup.js';

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: ACCESS_TOKEN, twilio: { sid: '', token: '' } });
});
afterAll(() => fake?.close());
afterEach(() => expect(fake.schemaViolations).toEqual([]));

describeApp(
  'WhatsApp end to end: reply buttons, a tap, a booking (local Graph API)',
  (get) => {
    let restore: (() => void) | undefined;
    afterEach(() => restore?.());

    it('a customer asks, gets reply buttons, taps one (webhook delivered 3 times at once), and is booked once with booking_channel whatsapp', async () => {
      const { app, ctx, db } = get();
      ctx.config.messaging.graphBaseUrl = fake.graphBase;
      fake.reset();
      const tenant = await buildTenant(ctx);
      const bot = await tenant.bot();
      const connectionId = (
        await addConnection(app, tenant, bot.id, { ...WHATSAPP_CONNECTION, quiet_window_ms: 0 })
      ).id;
      const event = await createEvent(
        app,
        tenant,
        { title: 'Salsa für Anfänger', bot_id: bot.id, event_date: '2030-06-01', event_time_start: '18:00' },
        'selling',
      );
      const block = await app.inject({
        method: 'POST',
        url: `/api/bots/${bot.id}/blocks`,
        headers: tenant.owner.headers,
        payload: {
          name: 'Kurse',
          block_type: 'buttons',
          items: [
            { id: 'salsa', title: 'Salsa' },
            { id: 'tango', title: 'Tango' },
          ],
        },
      });
      expect(block.statusCode, block.body).toBe(201);
      const customer = String(4917200000000 + Math.floor(Math.random() * 99_999_999));
      const toCustomer = () => fake.messages('meta').filter((r) => r.body.to === customer);
      const model = new WordModel('Welcher Kurs interessiert Sie? [BUTTONS:Kurse]');
      restore = useModel(ctx, model);

      await postMeta(
        app,
        connectionId,
        metaPayload(WHATSAPP_CONNECTION.phone_number_id, {
          messages: [textMessage(customer, 'Welche Kurse gibt es?')],
        }),
        APP_SECRET,
      );
      await vi.waitUntil(() => toCustomer().length >= 1, { timeout: 15_000, interval: 50 });
      const buttons = toCustomer()[0]!.body as {
        type: string;
        interactive: { type: string; action: { buttons: { reply: { id: string; title: string } }[] } };
      };
      expect(buttons.type).toBe('interactive');
      expect(buttons.interactive.type).toBe('button');
      const salsa = buttons.interactive.action.buttons.find((b) => b.reply.title === 'Salsa')!;
      const [sentRow] = await db.query<{ provider_message_ids: string[] }>(
        `SELECT provider_message_ids FROM channel_outbound WHERE connection_id = $1 AND purpose = 'reply'`,
        [connectionId],
      );

      // The tap, as Meta sends it, delivered three times at once.
      model.reply = `Sehr gerne, Sie sind für Salsa angemeldet. [BOOK:${event.id}]`;
      const tap = textMessage(customer, '', {
        type: 'interactive',
        text: undefined,
        context: { from: '4930999999', id: sentRow!.provider_message_ids[0] },
        interactive: { type: 'button_reply', button_reply: { id: salsa.reply.id, title: 'Salsa' } },
      });
      const payload = metaPayload(WHATSAPP_CONNECTION.phone_number_id, { messages: [tap] });
      const answers = await Promise.all(
        [1, 2, 3].map(() => postMeta(app, connectionId, payload, APP_SECRET)),
      );
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
      await vi.waitUntil(() => toCustomer().length >= 2, { timeout: 15_000, interval: 50 });
      await vi.waitUntil(
        async () =>
          (
            await db.query(`SELECT 1 FROM channel_inbound WHERE connection_id = $1 AND status = 'answered'`, [
              connectionId,
            ])
          ).length === 2,
        { timeout: 10_000, interval: 50 },
      );
      expect(toCustomer()[1]!.body).toMatchObject({
        type: 'text',
        text: { body: 'Sehr gerne, Sie sind für Salsa angemeldet.' },
      });
      const [inbound] = await db.query<{ kind: string; conversation_id: string }>(
        `SELECT kind, conversation_id FROM channel_inbound WHERE connection_id = $1 AND provider_message_id = $2`,
        [connectionId, tap.id],
      );
      expect(inbound!.kind).toBe('choice');
      const bookings = await db.query<{ booking_channel: string; metadata: { conversation_id?: string } }>(
        'SELECT booking_channel, metadata FROM event_bookings WHERE event_id = $1',
        [event.id],
      );
      expect(bookings).toHaveLength(1);
      expect(bookings[0]!.booking_channel).toBe('whatsapp');
      expect(bookings[0]!.metadata.conversation_id).toBe(inbound!.conversation_id);
      // Exactly two replies: the retried tap was answered once.
      expect(toCustomer()).toHaveLength(2);
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);
