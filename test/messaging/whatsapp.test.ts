import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { RecordingModel, useModel } from '../chat/fixtures.js';
import { startFakeProviders, type FakeProviders } from './fake-providers.js';
import { metaPayload, postMeta, signMeta, textMessage } from './meta-helpers.js';
import {
  ACCESS_TOKEN,
  APP_SECRET,
  VERIFY_TOKEN,
  WHATSAPP_CONNECTION,
  addConnection,
  takeOverConversation,
} from './setup.js';

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: ACCESS_TOKEN, twilio: { sid: '', token: '' } });
});
afterAll(() => fake?.close());
// Every request Parley sent matched the provider's published schema.
afterEach(() => expect(fake.schemaViolations).toEqual([]));

const PHONE_ID = WHATSAPP_CONNECTION.phone_number_id;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeApp(
  'WhatsApp Cloud API webhook and replies (local Graph API)',
  (get) => {
    let tenant: TenantFixture;
    let connectionId: string;
    let customer = 0;

    beforeEach(async () => {
      get().ctx.config.messaging.graphBaseUrl = fake.graphBase;
      get().ctx.config.messaging.sendTimeoutMs = 1000;
      tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      connectionId = (
        await addConnection(get().app, tenant, bot.id, { ...WHATSAPP_CONNECTION, quiet_window_ms: 200 })
      ).id;
      customer = 4917000000000 + Math.floor(Math.random() * 99_999_999);
      fake.reset();
    });

    const repliesTo = (to: string) => fake.messages('meta').filter((r) => r.body.to === to);
    const inboundCount = async () =>
      (
        await get().db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM channel_inbound WHERE connection_id = $1',
          [connectionId],
        )
      )[0]!.n;

    it('answers the verification GET with the challenge only for the right verify token', async () => {
      const { app } = get();
      const url = (token: string, mode = 'subscribe') =>
        `/v1/channels/${connectionId}/webhook?hub.mode=${mode}&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=1158201444`;
      const ok = await app.inject({ method: 'GET', url: url(VERIFY_TOKEN) });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toBe('1158201444');
      expect((await app.inject({ method: 'GET', url: url('wrong') })).statusCode).toBe(403);
      expect((await app.inject({ method: 'GET', url: url(APP_SECRET) })).statusCode).toBe(403);
      expect((await app.inject({ method: 'GET', url: url(VERIFY_TOKEN, 'unsubscribe') })).statusCode).toBe(
        403,
      );
      expect(
        (
          await app.inject({
            method: 'GET',
            url: `/v1/channels/${crypto.randomUUID()}/webhook?hub.mode=subscribe`,
          })
        ).statusCode,
      ).toBe(403);
    });

    it('runs at most MESSAGING_TURN_CONCURRENCY turns at once; the others wait and are all answered', async () => {
      const { app, ctx } = get();
      const previous = ctx.config.messaging.turnConcurrency;
      ctx.config.messaging.turnConcurrency = 2;
      const model = new RecordingModel();
      let inFlight = 0;
      let most = 0;
      model.answer = async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 150));
        inFlight -= 1;
        return { text: 'Gern geschehen.', model: 'recording-model', promptTokens: 5, completionTokens: 2 };
      };
      const restore = useModel(ctx, model);
      try {
        const customers = Array.from({ length: 6 }, (_v, i) => String(customer + i));
        const payload = metaPayload(PHONE_ID, {
          messages: customers.map((from, i) => textMessage(from, `Frage ${i}: wer bist du?`)),
        });
        expect((await postMeta(app, connectionId, payload, APP_SECRET)).statusCode).toBe(200);
        await vi.waitUntil(() => customers.every((from) => repliesTo(from).length === 1), {
          timeout: 20_000,
          interval: 50,
        });
        expect(model.requests).toHaveLength(6);
        expect(most).toBe(2);
      } finally {
        restore();
        ctx.config.messaging.turnConcurrency = previous;
      }
    });

    it('refuses unsigned, wrongly signed and changed bodies with 401, storing nothing; checks the raw bytes', async () => {
      const { app } = get();
      const from = String(customer);
      // Meta escapes non-ASCII: the signature is over these bytes, not over re-serialised JSON.
      const raw = JSON.stringify(metaPayload(PHONE_ID, { messages: [textMessage(from, 'Grüße')] })).replace(
        'Grüße',
        'Gr\\u00fc\\u00dfe',
      );
      expect((await postMeta(app, connectionId, raw, null)).statusCode).toBe(401);
      expect((await postMeta(app, connectionId, raw, 'another-secret')).statusCode).toBe(401);
      const changed = await app.inject({
        method: 'POST',
        url: `/v1/channels/${connectionId}/webhook`,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signMeta(raw, APP_SECRET) },
        payload: raw.replace('Gr\\u00fc', 'Gr\\u00fd'),
      });
      expect(changed.statusCode).toBe(401);
      expect(await inboundCount()).toBe(0);
      const ok = await postMeta(app, connectionId, raw, APP_SECRET);
      expect(ok.statusCode).toBe(200);
      expect(await inboundCount()).toBe(1);
      const [row] = await get().db.query<{ text: string }>(
        'SELECT text FROM channel_inbound WHERE connection_id = $1',
        [connectionId],
      );
      expect(row!.text).toBe('Grüße');
      const unknown = await postMeta(app, crypto.randomUUID(), raw, APP_SECRET);
      expect(unknown.statusCode).toBe(404);
    });

    it('throttles an address that keeps sending bad signatures', async () => {
      const { app } = get();
      const raw = JSON.stringify(metaPayload(PHONE_ID, { messages: [] }));
      for (let i = 0; i < 10; i++)
        expect((await postMeta(app, connectionId, raw, 'bad')).statusCode).toBe(401);
      const locked = await postMeta(app, connectionId, raw, APP_SECRET);
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('answers a webhook delivered three times at once exactly once, marks it read, follows statuses forward only', async () => {
      const { app, db } = get();
      const from = String(customer);
      const payload = metaPayload(PHONE_ID, { messages: [textMessage(from, 'Wann habt ihr geöffnet?')] });
      const started = Date.now();
      const answers = await Promise.all(
        [1, 2, 3].map(() => postMeta(app, connectionId, payload, APP_SECRET)),
      );
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
      expect(Date.now() - started).toBeLessThan(2000);
      await vi.waitUntil(() => repliesTo(from).length >= 1, { timeout: 15_000, interval: 50 });
      await sleep(600);
      expect(repliesTo(from)).toHaveLength(1);
      expect(await inboundCount()).toBe(1);
      expect(fake.readMarks().some((r) => String(r.body.message_id).startsWith('wamid.IN'))).toBe(true);
      const sent = repliesTo(from)[0]!;
      expect(sent.body).toMatchObject({ messaging_product: 'whatsapp', type: 'text' });
      const outboundId = sent.body.biz_opaque_callback_data as string;
      await vi.waitUntil(
        async () =>
          (
            await db.query<{ status: string }>('SELECT status FROM channel_outbound WHERE id = $1', [
              outboundId,
            ])
          )[0]?.status === 'accepted',
        { timeout: 5000 },
      );
      const [conversation] = await db.query<{ channel: string; sender_id: string }>(
        `SELECT c.channel, c.sender_id FROM conversations c JOIN channel_inbound i ON i.conversation_id = c.id
       WHERE i.connection_id = $1`,
        [connectionId],
      );
      expect(conversation).toEqual({ channel: 'whatsapp', sender_id: `+${from}` });
      const contacts = await db.query<{ phone: string }>('SELECT phone FROM contacts WHERE tenant_id = $1', [
        tenant.id,
      ]);
      expect(contacts.map((c) => c.phone)).toContain(`+${from}`);

      const wamid = 'wamid.FAKE-OUT';
      const status = (s: string) => ({
        id: wamid,
        status: s,
        timestamp: '1',
        recipient_id: from,
        biz_opaque_callback_data: outboundId,
      });
      for (const s of ['sent', 'read', 'delivered', 'read', 'sent']) {
        const res = await postMeta(
          app,
          connectionId,
          metaPayload(PHONE_ID, { statuses: [status(s)] }),
          APP_SECRET,
        );
        expect(res.statusCode).toBe(200);
      }
      const [after] = await db.query<{ status: string; provider_message_ids: string[] }>(
        'SELECT status, provider_message_ids FROM channel_outbound WHERE id = $1',
        [outboundId],
      );
      expect(after!.status).toBe('read');
      const events = await db.query('SELECT status FROM channel_status_events WHERE connection_id = $1', [
        connectionId,
      ]);
      expect(events).toHaveLength(3);
    });

    it('answers fragments typed in a burst once, in the order of the provider’s timestamps', async () => {
      const { app, db } = get();
      const from = String(customer);
      const [a, b, c] = [
        textMessage(from, 'Hallo'),
        textMessage(from, 'ich hätte'),
        textMessage(from, 'eine Frage'),
      ];
      // Delivered out of order: the timestamps decide.
      for (const m of [b, a, c]) {
        expect(
          (await postMeta(app, connectionId, metaPayload(PHONE_ID, { messages: [m] }), APP_SECRET))
            .statusCode,
        ).toBe(200);
        await sleep(60);
      }
      await vi.waitUntil(() => repliesTo(from).length >= 1, { timeout: 15_000, interval: 50 });
      await sleep(600);
      expect(repliesTo(from)).toHaveLength(1);
      const [message] = await db.query<{ content: string }>(
        `SELECT m.content FROM messages m JOIN channel_inbound i ON i.conversation_id = m.conversation_id
       WHERE i.connection_id = $1 AND m.role = 'user' LIMIT 1`,
        [connectionId],
      );
      expect(message!.content).toBe('Hallo\nich hätte\neine Frage');
    });

    it('stores a reaction without answering; tells a sender of a picture without caption that only text is read', async () => {
      const { app, db } = get();
      const from = String(customer);
      const reaction = textMessage(from, '', {
        type: 'reaction',
        reaction: { message_id: 'wamid.X', emoji: '👍' },
      });
      const image = textMessage(from, '', {
        type: 'image',
        image: { id: 'media-1', mime_type: 'image/jpeg' },
      });
      await postMeta(app, connectionId, metaPayload(PHONE_ID, { messages: [reaction, image] }), APP_SECRET);
      await vi.waitUntil(() => repliesTo(from).length >= 1, { timeout: 10_000, interval: 50 });
      await sleep(400);
      expect(repliesTo(from)).toHaveLength(1);
      expect(JSON.stringify(repliesTo(from)[0]!.body)).toContain('nur Text');
      const rows = await db.query<{ kind: string; status: string }>(
        'SELECT kind, status FROM channel_inbound WHERE connection_id = $1 ORDER BY provider_ts',
        [connectionId],
      );
      expect(rows).toEqual([
        { kind: 'reaction', status: 'skipped' },
        { kind: 'media', status: 'skipped' },
      ]);
    });

    it('backs off on 131056 (pair rate limit), says so in words, the connection stays healthy', async () => {
      const { app, db } = get();
      fake.failNext('meta', { status: 400, code: 131056 });
      await postMeta(
        app,
        connectionId,
        metaPayload(PHONE_ID, { messages: [textMessage(String(customer), 'Noch da?')] }),
        APP_SECRET,
      );
      await vi.waitUntil(
        async () =>
          (
            await db.query<{ status: string }>(
              `SELECT status FROM outbox_messages WHERE tenant_id = $1 AND kind = 'whatsapp.send'`,
              [tenant.id],
            )
          )[0]?.status === 'retry',
        { timeout: 10_000, interval: 50 },
      );
      const [conn] = await db.query<{ unhealthy_since: Date | null; last_error: string }>(
        'SELECT unhealthy_since, last_error FROM channel_connections WHERE id = $1',
        [connectionId],
      );
      expect(conn!.unhealthy_since).toBeNull();
      expect(conn!.last_error).toContain('Zu viele Nachrichten an diese Nummer');
    });

    it('backs off on 130429, marks the connection unhealthy on 190 with one webhook event, refuses 131047 in words', async () => {
      const { app, db, ctx } = get();
      const from = String(customer);
      fake.failNext('meta', { status: 400, code: 130429 });
      await postMeta(
        app,
        connectionId,
        metaPayload(PHONE_ID, { messages: [textMessage(from, 'Hallo?')] }),
        APP_SECRET,
      );
      await vi.waitUntil(
        async () =>
          (
            await db.query<{ status: string }>(
              `SELECT status FROM outbox_messages WHERE tenant_id = $1 AND kind = 'whatsapp.send'`,
              [tenant.id],
            )
          )[0]?.status === 'retry',
        { timeout: 10_000, interval: 50 },
      );
      // The backoff is measured from the attempt, not from when this test looks (a slow machine).
      const [retry] = await db.query<{ next_attempt_at: Date; updated_at: Date }>(
        `SELECT next_attempt_at, updated_at FROM outbox_messages WHERE tenant_id = $1 AND kind = 'whatsapp.send'`,
        [tenant.id],
      );
      expect(retry!.next_attempt_at.getTime() - retry!.updated_at.getTime()).toBeGreaterThanOrEqual(3_900);
      const health = await app.inject({
        method: 'GET',
        url: `/api/bots/${(await db.query<{ bot_id: string }>('SELECT bot_id FROM channel_connections WHERE id = $1', [connectionId]))[0]!.bot_id}/connections/${connectionId}`,
        headers: tenant.owner.headers,
      });
      expect(health.json().health).toMatchObject({ healthy: true, last_error_code: '130429' });
      expect(health.json().health.error_counts).toEqual([
        expect.objectContaining({ code: '130429', count: 1 }),
      ]);

      // 190: the token expired.
      const endpoint = await app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: tenant.owner.headers,
        payload: { url: 'http://127.0.0.1:9/hook', event_types: ['channel.unhealthy'] },
      });
      expect(endpoint.statusCode, endpoint.body).toBe(201);
      await db.query(`UPDATE outbox_messages SET next_attempt_at = now() WHERE tenant_id = $1`, [tenant.id]);
      fake.failNext('meta', { status: 401, code: 190 });
      const { sendDueNow } = await import('../../src/modules/messaging/sender.js');
      // Sends what is due until the condition holds (a worker of the app may claim it first).
      const sendUntil = (condition: () => Promise<boolean>) =>
        vi.waitUntil(
          async () => {
            await sendDueNow(ctx);
            return condition();
          },
          { timeout: 10_000, interval: 100 },
        );
      await sendUntil(
        async () =>
          (
            await db.query(
              'SELECT 1 FROM channel_connections WHERE id = $1 AND unhealthy_since IS NOT NULL',
              [connectionId],
            )
          ).length === 1,
      );
      const [conn] = await db.query<{ unhealthy_since: Date | null; last_error: string }>(
        'SELECT unhealthy_since, last_error FROM channel_connections WHERE id = $1',
        [connectionId],
      );
      expect(conn!.unhealthy_since).not.toBeNull();
      expect(conn!.last_error).toContain('Zugriffstoken');
      // The message waits (held) for new credentials; the event is sent once.
      const [held] = await db.query<{ status: string }>(
        `SELECT status FROM outbox_messages WHERE tenant_id = $1 AND kind = 'whatsapp.send'`,
        [tenant.id],
      );
      expect(held!.status).toBe('retry');
      const events = await db.query<{ event_type: string }>(
        `SELECT e.type AS event_type FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.tenant_id = $1`,
        [tenant.id],
      );
      expect(events.map((e) => e.event_type)).toEqual(['channel.unhealthy']);

      // 131047 answered at once: refused in words, not sent again.
      await db.query('UPDATE channel_connections SET unhealthy_since = NULL WHERE id = $1', [connectionId]);
      await db.query(`UPDATE outbox_messages SET next_attempt_at = now() WHERE tenant_id = $1`, [tenant.id]);
      fake.failNext('meta', { status: 400, code: 131047 });
      await sendUntil(
        async () =>
          (
            await db.query(
              `SELECT 1 FROM channel_outbound WHERE connection_id = $1 AND purpose = 'reply' AND status = 'refused'`,
              [connectionId],
            )
          ).length === 1,
      );
      const [out] = await db.query<{ status: string; error_text: string; error_code: string }>(
        'SELECT status, error_text, error_code FROM channel_outbound WHERE connection_id = $1 AND purpose = $2',
        [connectionId, 'reply'],
      );
      expect(out).toMatchObject({ status: 'refused', error_code: '131047' });
      expect(out!.error_text).toMatch(/^Das 24-Stunden-Fenster ist geschlossen/);
    });

    it('does not resend a reply whose send timed out: unknown until the status webhook settles it', async () => {
      const { app, db } = get();
      const from = String(customer);
      fake.failNext('meta', { delayMs: 1500 });
      await postMeta(
        app,
        connectionId,
        metaPayload(PHONE_ID, { messages: [textMessage(from, 'Hallo')] }),
        APP_SECRET,
      );
      let outboundId = '';
      await vi.waitUntil(
        async () => {
          const [row] = await db.query<{ id: string; status: string }>(
            'SELECT id, status FROM channel_outbound WHERE connection_id = $1',
            [connectionId],
          );
          outboundId = row?.id ?? '';
          return row?.status === 'unknown';
        },
        { timeout: 15_000, interval: 50 },
      );
      await vi.waitUntil(
        async () =>
          (
            await db.query<{ status: string }>(
              `SELECT status FROM outbox_messages WHERE tenant_id = $1 AND kind = 'whatsapp.send'`,
              [tenant.id],
            )
          )[0]?.status === 'dead',
        { timeout: 5000, interval: 50 },
      );
      const [outbox] = await db.query<{ status: string; attempts: number; last_error: string }>(
        `SELECT status, attempts, last_error FROM outbox_messages WHERE tenant_id = $1 AND kind = 'whatsapp.send'`,
        [tenant.id],
      );
      expect(outbox).toMatchObject({ status: 'dead', attempts: 1 });
      expect(outbox!.last_error).toContain('not sent again');
      // Whatever is due is sent now: the timed-out reply is not among it.
      const { sendDueNow } = await import('../../src/modules/messaging/sender.js');
      await db.query(`UPDATE outbox_messages SET next_attempt_at = now() WHERE tenant_id = $1`, [tenant.id]);
      await sendDueNow(get().ctx);
      expect(repliesTo(from)).toHaveLength(1);
      await postMeta(
        app,
        connectionId,
        metaPayload(PHONE_ID, {
          statuses: [
            {
              id: 'wamid.LATE',
              status: 'delivered',
              timestamp: '1',
              recipient_id: from,
              biz_opaque_callback_data: outboundId,
            },
          ],
        }),
        APP_SECRET,
      );
      const [settled] = await db.query<{ status: string; provider_message_ids: string[] }>(
        'SELECT status, provider_message_ids FROM channel_outbound WHERE id = $1',
        [outboundId],
      );
      expect(settled).toEqual({ status: 'delivered', provider_message_ids: ['wamid.LATE'] });
    });

    it('maps a late 131047 failed status back to the message, in words', async () => {
      const { app, db } = get();
      const from = String(customer);
      await postMeta(
        app,
        connectionId,
        metaPayload(PHONE_ID, { messages: [textMessage(from, 'Hallo')] }),
        APP_SECRET,
      );
      await vi.waitUntil(() => repliesTo(from).length >= 1, { timeout: 15_000, interval: 50 });
      const outboundId = repliesTo(from)[0]!.body.biz_opaque_callback_data as string;
      await postMeta(
        app,
        connectionId,
        metaPayload(PHONE_ID, {
          statuses: [
            {
              id: 'wamid.F',
              status: 'failed',
              timestamp: '1',
              recipient_id: from,
              biz_opaque_callback_data: outboundId,
              errors: [{ code: 131047, title: 'Re-engagement message' }],
            },
          ],
        }),
        APP_SECRET,
      );
      const [row] = await db.query<{ status: string; error_text: string }>(
        'SELECT status, error_text FROM channel_outbound WHERE id = $1',
        [outboundId],
      );
      expect(row!.status).toBe('failed');
      expect(row!.error_text).toMatch(/^Das 24-Stunden-Fenster ist geschlossen/);
    });
    it('hand-over: the customer keeps writing into the inbox, the bot is silent, a person answers; after 25 hours refused in words', async () => {
      const { app, db, ctx } = get();
      const from = String(customer);
      await postMeta(
        app,
        connectionId,
        metaPayload(PHONE_ID, { messages: [textMessage(from, 'Hallo')] }),
        APP_SECRET,
      );
      await vi.waitUntil(() => repliesTo(from).length >= 1, { timeout: 15_000, interval: 50 });
      const conversationId = await takeOverConversation(app, db, tenant, connectionId);
      for (const text of ['Sind Sie noch da?', 'Ich warte auf Antwort']) {
        await postMeta(
          app,
          connectionId,
          metaPayload(PHONE_ID, { messages: [textMessage(from, text)] }),
          APP_SECRET,
        );
        await sleep(400);
      }
      await vi.waitUntil(
        async () =>
          (
            await db.query(
              `SELECT 1 FROM channel_inbound WHERE connection_id = $1 AND status = 'handed_over'`,
              [connectionId],
            )
          ).length === 2,
        { timeout: 10_000, interval: 50 },
      );
      expect(repliesTo(from)).toHaveLength(1);
      const kept = await db.query<{ content: string }>(
        `SELECT content FROM messages WHERE conversation_id = $1 AND role = 'user' ORDER BY created_at`,
        [conversationId],
      );
      expect(kept.map((m) => m.content)).toEqual(['Hallo', 'Sind Sie noch da?', 'Ich warte auf Antwort']);
      const rows = await db.query<{ status: string }>(
        `SELECT status FROM channel_inbound WHERE connection_id = $1 ORDER BY provider_ts`,
        [connectionId],
      );
      expect(rows.map((r) => r.status)).toEqual(['answered', 'handed_over', 'handed_over']);

      const answer = await app.inject({
        method: 'POST',
        url: `/api/inbox/${conversationId}/reply`,
        headers: tenant.owner.headers,
        payload: { text: 'Hier ist Anna, wie kann ich helfen?' },
      });
      expect(answer.statusCode, answer.body).toBe(201);
      const { sendDueNow } = await import('../../src/modules/messaging/sender.js');
      await sendDueNow(ctx);
      expect(repliesTo(from)).toHaveLength(2);
      expect(repliesTo(from)[1]!.body).toMatchObject({
        type: 'text',
        text: { body: 'Hier ist Anna, wie kann ich helfen?' },
      });

      const state = await app.inject({
        method: 'GET',
        url: `/api/conversations/${conversationId}/channel`,
        headers: tenant.owner.headers,
      });
      expect(state.statusCode, state.body).toBe(200);
      expect(state.json()).toMatchObject({
        kind: 'whatsapp_cloud',
        customer_number: `+${from}`,
        opted_out: false,
        window: { open: true },
      });
      expect(state.json().window.remaining_seconds).toBeGreaterThan(23 * 3600);
      expect(state.json().messages.map((m: { purpose: string }) => m.purpose)).toEqual(['reply', 'person']);
      const other = await buildTenant(ctx);
      for (const [headers, status] of [
        [other.owner.headers, 404],
        [{}, 401],
        [(await tenant.user('editor')).headers, 200],
      ] as const) {
        const res = await app.inject({
          method: 'GET',
          url: `/api/conversations/${conversationId}/channel`,
          headers,
        });
        expect(res.statusCode).toBe(status);
      }

      // 25 hours later the window is closed: refused before calling Meta, nothing stored.
      await db.query(
        `UPDATE channel_inbound SET provider_ts = provider_ts - interval '25 hours' WHERE connection_id = $1`,
        [connectionId],
      );
      const before = await db.query('SELECT id FROM messages WHERE conversation_id = $1', [conversationId]);
      const late = await app.inject({
        method: 'POST',
        url: `/api/inbox/${conversationId}/reply`,
        headers: tenant.owner.headers,
        payload: { text: 'Sind Sie noch interessiert?' },
      });
      expect(late.statusCode).toBe(409);
      expect(late.json()).toMatchObject({ code: 'window_closed' });
      expect(late.json().message).toMatch(/^Das 24-Stunden-Fenster ist geschlossen/);
      expect(
        await db.query('SELECT id FROM messages WHERE conversation_id = $1', [conversationId]),
      ).toHaveLength(before.length);
      await sendDueNow(ctx);
      expect(repliesTo(from)).toHaveLength(2);
      const closed = await app.inject({
        method: 'GET',
        url: `/api/conversations/${conversationId}/channel`,
        headers: tenant.owner.headers,
      });
      expect(closed.json().window).toMatchObject({ open: false, remaining_seconds: 0 });
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);
