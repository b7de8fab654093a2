import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { CHANNEL_KINDS, channelOutboxKinds } from '../../src/modules/channels/registry.js';
import { findMailboxById } from '../../src/modules/mailboxes/repository.js';
import { receiveMail, type InboundMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { createEmailSender } from '../../src/modules/mailboxes/connectors/sender.js';
import { enqueue } from '../../src/modules/outbox/service.js';
import { outboxSenders } from '../../src/scheduler.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { seedConversation } from '../conversations/seed.js';
import { addMailbox, POSTMARK_MAILBOX } from '../email/mailbox-setup.js';
import { startFakeProviders, type FakeProviders } from '../messaging/fake-providers.js';
import { metaPayload, postMeta, textMessage } from '../messaging/meta-helpers.js';
import { ACCESS_TOKEN, APP_SECRET, WHATSAPP_CONNECTION, addConnection } from '../messaging/setup.js';

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: ACCESS_TOKEN, twilio: { sid: '', token: '' } });
});
afterAll(() => fake?.close());

interface OutboxRow {
  kind: string;
  payload: Record<string, unknown>;
}

describeApp(
  'one outbound path: a person’s reply and the bot’s leave through the same port and outbox kind',
  (get) => {
    let tenant: TenantFixture;

    beforeEach(async () => {
      tenant = await buildTenant(get().ctx);
    });

    const outbox = (tenantId: string) =>
      get().db.query<OutboxRow>(
        `SELECT kind, payload FROM outbox_messages WHERE tenant_id = $1 ORDER BY created_at, idempotency_key`,
        [tenantId],
      );
    const reply = (conversationId: string, text: string) =>
      get().app.inject({
        method: 'POST',
        url: `/api/inbox/${conversationId}/reply`,
        headers: tenant.owner.headers,
        payload: { text },
      });
    const takeOver = async (conversationId: string) => {
      const res = await get().app.inject({
        method: 'POST',
        url: `/api/inbox/${conversationId}/take-over`,
        headers: tenant.owner.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
    };

    it('every outbox kind a channel names has a sender, and every channel kind a delivery', () => {
      const senders = new Set(outboxSenders(get().ctx).map((s) => s.kind));
      expect(channelOutboxKinds().filter((kind) => !senders.has(kind))).toEqual([]);
      for (const kind of CHANNEL_KINDS) expect(typeof get().ctx.deliveries[kind].enqueue).toBe('function');
    });

    it('e-mail: the bot’s reply and a person’s are both `email.reply` with payload {outbound_id}', async () => {
      const { ctx, db } = get();
      const bot = await tenant.bot();
      const box = (await findMailboxById(db, await addMailbox(get().app, tenant, bot.id, POSTMARK_MAILBOX)))!;
      const mail: InboundMail = {
        messageId: `<o-${Date.now()}@kunde.example>`,
        from: 'kundin@kunde.example',
        subject: 'Öffnungszeiten',
        inReplyTo: null,
        references: [],
        text: 'Wann haben Sie geöffnet?',
        headers: {},
        contentType: 'text/plain',
      };
      const outcome = await receiveMail(ctx, box, mail);
      if (outcome.status !== 'answered') throw new Error(outcome.status);
      await takeOver(outcome.conversationId);
      const res = await reply(outcome.conversationId, 'Hier ist Anna: ab 9 Uhr.');
      expect(res.statusCode, res.body).toBe(201);

      const rows = await outbox(tenant.id);
      expect(rows.map((r) => [r.kind, Object.keys(r.payload)])).toEqual([
        ['email.reply', ['outbound_id']],
        ['email.reply', ['outbound_id']],
      ]);
      const mails = await db.query<{
        automated: boolean;
        to_address: string;
        body_text: string;
        subject: string;
      }>(
        `SELECT automated, to_address, body_text, subject FROM email_outbound WHERE id = ANY($1::uuid[]) ORDER BY automated DESC`,
        [rows.map((r) => r.payload.outbound_id)],
      );
      expect(mails.map((m) => [m.automated, m.to_address])).toEqual([
        [true, 'kundin@kunde.example'],
        [false, 'kundin@kunde.example'],
      ]);
      expect(mails[1]!.body_text).toBe('Hier ist Anna: ab 9 Uhr.');
      expect(mails[1]!.subject).toBe('Re: Öffnungszeiten');
    });

    it('e-mail: a row queued by an earlier version ({conversation_id, message_id}) still finds its mail', async () => {
      const { ctx, db } = get();
      const bot = await tenant.bot();
      const box = (await findMailboxById(db, await addMailbox(get().app, tenant, bot.id, POSTMARK_MAILBOX)))!;
      const outcome = await receiveMail(ctx, box, {
        messageId: `<legacy-${Date.now()}@kunde.example>`,
        from: 'alt@kunde.example',
        subject: 'Alt',
        inReplyTo: null,
        references: [],
        text: 'Eine alte Frage',
        headers: {},
        contentType: 'text/plain',
      });
      if (outcome.status !== 'answered') throw new Error(outcome.status);
      const { id: messageId } = (
        await db.query<{ id: string }>(
          `INSERT INTO messages (tenant_id, bot_id, conversation_id, role, content) VALUES ($1, $2, $3, 'assistant', 'Von früher') RETURNING id`,
          [tenant.id, bot.id, outcome.conversationId],
        )
      )[0]!;
      await enqueue(db, tenant.id, [
        {
          kind: 'email.reply',
          idempotencyKey: `email.reply:${messageId}`,
          payload: { conversation_id: outcome.conversationId, message_id: messageId },
        },
      ]);
      const [queued] = await db.query<Parameters<ReturnType<typeof createEmailSender>['send']>[0]>(
        `SELECT * FROM outbox_messages WHERE idempotency_key = $1`,
        [`email.reply:${messageId}`],
      );
      const sender = createEmailSender(ctx);
      // The SMTP server of the test mailbox does not answer: the attempt fails, the row is written.
      await sender.send({ ...queued!, attempts: 1 }, new Date());
      await db.transaction((tx) => sender.afterAttempt!(tx, queued!, { kind: 'retry', delayMs: 1000 }));
      const written = await db.query<{ body_text: string; automated: boolean; delivery_status: string }>(
        `SELECT body_text, automated, delivery_status FROM email_outbound WHERE conversation_id = $1 AND automated = false`,
        [outcome.conversationId],
      );
      expect(written).toEqual([{ body_text: 'Von früher', automated: false, delivery_status: 'deferred' }]);
    });

    it('e-mail conversation started through the chat API: a person’s reply is the API’s conversation.message event', async () => {
      const { db } = get();
      const bot = await tenant.bot();
      await db.query(
        `INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret) VALUES ($1, 'https://example.com/hook', $2, 'whsec_test')`,
        [tenant.id, ['conversation.message']],
      );
      const { id } = await seedConversation(db, tenant.id, bot.id, {
        channel: 'email',
        status: 'handed_over',
        messages: 1,
      });
      const res = await reply(id, 'Hallo aus dem Posteingang');
      expect(res.statusCode, res.body).toBe(201);
      expect((await outbox(tenant.id)).map((r) => [r.kind, Object.keys(r.payload)])).toEqual([
        ['webhook', ['delivery_id']],
      ]);
    });

    it('WhatsApp: the bot’s reply and a person’s are both `whatsapp.send` with payload {outbound_id}; a closed window refuses in words', async () => {
      const { app, db, ctx } = get();
      ctx.config.messaging.graphBaseUrl = fake.graphBase;
      const bot = await tenant.bot();
      const connectionId = (
        await addConnection(app, tenant, bot.id, { ...WHATSAPP_CONNECTION, quiet_window_ms: 100 })
      ).id;
      const from = String(4917100000000 + Math.floor(Math.random() * 9_999_999));
      const posted = await postMeta(
        app,
        connectionId,
        metaPayload(WHATSAPP_CONNECTION.phone_number_id, { messages: [textMessage(from, 'Hallo')] }),
        APP_SECRET,
      );
      expect(posted.statusCode).toBe(200);
      let conversationId = '';
      await vi.waitUntil(
        async () => {
          const [row] = await db.query<{ conversation_id: string }>(
            `SELECT conversation_id FROM channel_inbound WHERE connection_id = $1 AND status = 'answered'`,
            [connectionId],
          );
          conversationId = row?.conversation_id ?? '';
          return conversationId !== '';
        },
        { timeout: 15_000, interval: 50 },
      );
      await takeOver(conversationId);
      const res = await reply(conversationId, 'Hier ist Anna.');
      expect(res.statusCode, res.body).toBe(201);
      const rows = await outbox(tenant.id);
      expect(rows.map((r) => [r.kind, Object.keys(r.payload)])).toEqual([
        ['whatsapp.send', ['outbound_id']],
        ['whatsapp.send', ['outbound_id']],
      ]);
      const purposes = await db.query<{ purpose: string; automated: boolean }>(
        `SELECT purpose, automated FROM channel_outbound WHERE id = ANY($1::uuid[]) ORDER BY automated DESC`,
        [rows.map((r) => r.payload.outbound_id)],
      );
      expect(purposes).toEqual([
        { purpose: 'reply', automated: true },
        { purpose: 'person', automated: false },
      ]);

      // The window closed: refused in words before anything is stored or queued.
      await db.query(
        `UPDATE channel_inbound SET provider_ts = provider_ts - interval '25 hours' WHERE connection_id = $1`,
        [connectionId],
      );
      const late = await reply(conversationId, 'Noch da?');
      expect(late.statusCode).toBe(409);
      expect(late.json()).toMatchObject({ code: 'window_closed' });
      expect(await outbox(tenant.id)).toHaveLength(2);
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);
