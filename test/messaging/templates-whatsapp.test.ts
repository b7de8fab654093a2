import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { startFakeProviders, type FakeProviders } from './fake-providers.js';
import type { FakeMetaTemplate } from './fake-templates.js';
import { metaPayload, postMeta, textMessage } from './meta-helpers.js';
import {
  ACCESS_TOKEN,
  APP_SECRET,
  WHATSAPP_CONNECTION,
  addConnection,
  takeOverConversation,
} from './setup.js';

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: ACCESS_TOKEN, twilio: { sid: '', token: '' } });
});
afterAll(() => fake?.close());
afterEach(() => expect(fake.schemaViolations).toEqual([]));

const PHONE_ID = WHATSAPP_CONNECTION.phone_number_id;
const WABA = WHATSAPP_CONNECTION.business_account_id;

const template = (name: string, language: string, status: string, body: string): FakeMetaTemplate => ({
  id: `${name.length}${language.length}${Math.floor(Math.random() * 1e9)}`,
  name,
  language,
  status,
  category: 'UTILITY',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Parley' },
    { type: 'BODY', text: body },
  ],
});

const META_TEMPLATES = () => [
  template('termin_erinnerung', 'de', 'APPROVED', 'Hallo {{1}}, Ihr Termin am {{2}} steht. Passt das noch?'),
  template('angebot', 'de', 'REJECTED', 'Unser Angebot: {{1}}'),
  template('welcome_back', 'en', 'APPROVED', 'Welcome back! Reply to continue.'),
];

/** A template status change as Meta sends it to the connection's webhook. */
function statusUpdate(t: FakeMetaTemplate, event: string, account = WABA) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: account,
        time: Math.floor(Date.now() / 1000),
        changes: [
          {
            field: 'message_template_status_update',
            value: {
              event,
              message_template_id: Number(t.id),
              message_template_name: t.name,
              message_template_language: t.language,
              reason: null,
            },
          },
        ],
      },
    ],
  };
}

describeApp(
  'WhatsApp templates (local Graph API): read, refreshed by webhook, sent from the inbox',
  (get) => {
    let tenant: TenantFixture;
    let botId: string;
    let connectionId: string;
    let customer: string;

    beforeEach(async () => {
      get().ctx.config.messaging.graphBaseUrl = fake.graphBase;
      get().ctx.config.messaging.sendTimeoutMs = 2000;
      tenant = await buildTenant(get().ctx);
      botId = (await tenant.bot()).id;
      connectionId = (
        await addConnection(get().app, tenant, botId, { ...WHATSAPP_CONNECTION, quiet_window_ms: 0 })
      ).id;
      customer = String(4917100000000 + Math.floor(Math.random() * 99_999_999));
      fake.reset();
      fake.templates.meta.push(...META_TEMPLATES());
    });

    const templatesUrl = () => `/api/bots/${botId}/connections/${connectionId}/templates`;
    const sent = () => fake.messages('meta').filter((r) => r.body.to === customer);
    /** The customer writes, the bot answers, a person takes the conversation over. */
    const heldConversation = async () => {
      const { app, db } = get();
      await postMeta(
        app,
        connectionId,
        metaPayload(PHONE_ID, { messages: [textMessage(customer, 'Hallo')] }),
        APP_SECRET,
      );
      await vi.waitUntil(() => sent().length >= 1, { timeout: 15_000, interval: 50 });
      return takeOverConversation(app, db, tenant, connectionId);
    };
    /** Reads the connection's templates from Meta now. */
    const refresh = async () => {
      const refreshed = await get().app.inject({
        method: 'POST',
        url: `${templatesUrl()}/refresh`,
        headers: tenant.owner.headers,
      });
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      return refreshed;
    };

    it('reads every page of the templates from Meta; bot:view lists, bot:edit refreshes, another tenant gets 404', async () => {
      const { app, ctx } = get();
      const empty = await app.inject({ method: 'GET', url: templatesUrl(), headers: tenant.owner.headers });
      expect(empty.json()).toEqual({ data: [] });
      const refreshed = await refresh();
      expect(refreshed.json().data).toEqual([
        expect.objectContaining({ name: 'angebot', status: 'REJECTED', sendable: false, parameter_count: 1 }),
        expect.objectContaining({
          name: 'termin_erinnerung',
          language: 'de',
          status: 'APPROVED',
          category: 'UTILITY',
          sendable: true,
          parameter_count: 2,
          body: 'Hallo {{1}}, Ihr Termin am {{2}} steht. Passt das noch?',
        }),
        expect.objectContaining({ name: 'welcome_back', language: 'en', parameter_count: 0 }),
      ]);
      // Three templates, two a page: the paging was followed.
      const reads = fake.requests.filter((r) => r.path.includes('/message_templates'));
      expect(reads.map((r) => new URL(r.path, 'http://x').pathname)).toEqual([
        `/v23.0/${WABA}/message_templates`,
        `/v23.0/${WABA}/message_templates`,
      ]);
      expect(reads[0]!.auth).toBe(`Bearer ${ACCESS_TOKEN}`);

      const viewer = await tenant.user('viewer');
      const agent = await tenant.user('agent');
      const other = await buildTenant(ctx);
      for (const [method, url, headers, status] of [
        ['GET', templatesUrl(), viewer.headers, 200],
        ['GET', templatesUrl(), agent.headers, 403],
        ['GET', templatesUrl(), {}, 401],
        ['GET', templatesUrl(), other.owner.headers, 404],
        ['POST', `${templatesUrl()}/refresh`, viewer.headers, 403],
        ['POST', `${templatesUrl()}/refresh`, {}, 401],
        ['POST', `${templatesUrl()}/refresh`, other.owner.headers, 404],
      ] as const) {
        const res = await app.inject({ method, url, headers });
        expect(res.statusCode, `${method} ${url}`).toBe(status);
      }

      // Meta refuses the token: 503 in words, the stored templates stay, the connection is unhealthy.
      fake.failNext('meta', { status: 401, code: 190 });
      const refused = await app.inject({
        method: 'POST',
        url: `${templatesUrl()}/refresh`,
        headers: tenant.owner.headers,
      });
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ code: 'templates_unavailable' });
      expect(refused.json().message).toMatch(/Zugriffstoken ist abgelaufen/);
      expect(refused.body).not.toContain(ACCESS_TOKEN);
      const kept = await app.inject({ method: 'GET', url: templatesUrl(), headers: tenant.owner.headers });
      expect(kept.json().data).toHaveLength(3);
      const health = await app.inject({
        method: 'GET',
        url: `/api/bots/${botId}/connections/${connectionId}`,
        headers: tenant.owner.headers,
      });
      expect(health.json().health).toMatchObject({ healthy: false, last_error_code: '190' });
    });

    it('a person’s reply after 25 hours is refused in words and sent as a template; a paused one no longer', async () => {
      const { app, db, ctx } = get();
      const { sendDueNow } = await import('../../src/modules/messaging/sender.js');
      const conversationId = await heldConversation();
      await db.query(
        `UPDATE channel_inbound SET provider_ts = provider_ts - interval '25 hours' WHERE connection_id = $1`,
        [connectionId],
      );
      const messages = async () =>
        (await db.query('SELECT id FROM messages WHERE conversation_id = $1', [conversationId])).length;
      const before = await messages();

      // The free-form reply is refused in words, naming the template way.
      const late = await app.inject({
        method: 'POST',
        url: `/api/inbox/${conversationId}/reply`,
        headers: tenant.owner.headers,
        payload: { text: 'Sind Sie noch interessiert?' },
      });
      expect(late.statusCode).toBe(409);
      expect(late.json()).toMatchObject({ code: 'window_closed' });
      expect(late.json().message).toMatch(/^Das 24-Stunden-Fenster ist geschlossen.*Vorlage senden/);

      await refresh();
      const choice = await app.inject({
        method: 'GET',
        url: `/api/conversations/${conversationId}/channel/templates`,
        headers: (await tenant.user('agent')).headers,
      });
      expect(choice.statusCode, choice.body).toBe(200);
      expect(choice.json().data.map((t: { name: string }) => t.name)).toEqual([
        'termin_erinnerung',
        'welcome_back',
      ]);

      const send = (payload: object, headers: Record<string, string> = tenant.owner.headers) =>
        app.inject({ method: 'POST', url: `/api/inbox/${conversationId}/template`, headers, payload });
      // Refusals in words; nothing stored, nothing sent.
      const other = await buildTenant(ctx);
      const good = { name: 'termin_erinnerung', language: 'de', parameters: ['Frau Weber', '3. Dezember'] };
      for (const [payload, headers, status, code] of [
        [{ ...good, parameters: ['Frau Weber'] }, tenant.owner.headers, 422, 'template_parameters'],
        [{ ...good, name: 'gibt_es_nicht' }, tenant.owner.headers, 422, 'template_unknown'],
        [
          { name: 'angebot', language: 'de', parameters: ['x'] },
          tenant.owner.headers,
          422,
          'template_unknown',
        ],
        [{ ...good, parameters: ['Frau Weber', ' '] }, tenant.owner.headers, 400, 'field_blank'],
        [{ ...good, extra: 1 }, tenant.owner.headers, 400, undefined],
        [good, other.owner.headers, 404, undefined],
        [good, {}, 401, undefined],
        [good, (await tenant.user('viewer')).headers, 403, undefined],
      ] as const) {
        const res = await send(payload, headers);
        expect(res.statusCode, res.body).toBe(status);
        if (code) expect(res.json()).toMatchObject({ code });
        if (status === 422) expect(res.json().message).toMatch(/Vorlage/);
      }
      expect(await messages()).toBe(before);

      const ok = await send(good);
      expect(ok.statusCode, ok.body).toBe(201);
      // Stored as the customer reads it: the header, then the body filled in.
      expect(ok.json()).toMatchObject({
        role: 'assistant',
        content: 'Parley\n\nHallo Frau Weber, Ihr Termin am 3. Dezember steht. Passt das noch?',
      });
      await sendDueNow(ctx);
      expect(sent()).toHaveLength(2);
      expect(sent()[1]!.body).toMatchObject({
        type: 'template',
        template: {
          name: 'termin_erinnerung',
          language: { policy: 'deterministic', code: 'de' },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Frau Weber' },
                { type: 'text', text: '3. Dezember' },
              ],
            },
          ],
        },
      });
      // In the inbox like a person's reply; its delivery status in the channel state.
      const detail = await app.inject({
        method: 'GET',
        url: `/api/inbox/${conversationId}`,
        headers: tenant.owner.headers,
      });
      expect(detail.json().messages.at(-1)).toMatchObject({
        content: 'Parley\n\nHallo Frau Weber, Ihr Termin am 3. Dezember steht. Passt das noch?',
        from_person: true,
      });
      const state = await app.inject({
        method: 'GET',
        url: `/api/conversations/${conversationId}/channel`,
        headers: tenant.owner.headers,
      });
      expect(state.json().messages.at(-1)).toMatchObject({ purpose: 'template', status: 'accepted' });

      // Meta pauses the template: the webhook changes its status, it can no longer be sent.
      const termin = fake.templates.meta.find((t) => t.name === 'termin_erinnerung')!;
      termin.status = 'PAUSED';
      const hook = await postMeta(app, connectionId, statusUpdate(termin, 'PAUSED'), APP_SECRET);
      expect(hook.statusCode).toBe(200);
      const listed = await app.inject({ method: 'GET', url: templatesUrl(), headers: tenant.owner.headers });
      expect(listed.json().data.find((t: { name: string }) => t.name === 'termin_erinnerung')).toMatchObject({
        status: 'PAUSED',
        sendable: false,
      });
      const count = await messages();
      const paused = await send(good);
      expect(paused.statusCode).toBe(422);
      expect(paused.json().message).toMatch(/nicht freigegeben \(Status PAUSED\)/);
      expect(await messages()).toBe(count);
      await sendDueNow(ctx);
      expect(sent()).toHaveLength(2);

      // Another account's change is not this connection's; an unknown template makes the list be read anew.
      await postMeta(app, connectionId, statusUpdate(termin, 'APPROVED', '999'), APP_SECRET);
      expect(
        (await app.inject({ method: 'GET', url: templatesUrl(), headers: tenant.owner.headers })).json().data,
      ).toContainEqual(expect.objectContaining({ name: 'termin_erinnerung', status: 'PAUSED' }));
      const fresh = template('neu_freigegeben', 'de', 'APPROVED', 'Neu: {{1}}');
      fake.templates.meta.push(fresh);
      await postMeta(app, connectionId, statusUpdate(fresh, 'APPROVED'), APP_SECRET);
      await vi.waitUntil(
        async () =>
          (await app.inject({ method: 'GET', url: templatesUrl(), headers: tenant.owner.headers }))
            .json()
            .data.some((t: { name: string }) => t.name === 'neu_freigegeben'),
        { timeout: 10_000, interval: 50 },
      );

      // Meta refuses the parameters (the template changed there): 132000 in words on the message.
      fake.templates.meta.find((t) => t.name === 'welcome_back')!.components[1]!.text = 'Welcome {{1}}!';
      const welcome = await send({ name: 'welcome_back', language: 'en', parameters: [] });
      expect(welcome.statusCode, welcome.body).toBe(201);
      await sendDueNow(ctx);
      const [row] = await db.query<{ status: string; error_code: string; error_text: string }>(
        `SELECT status, error_code, error_text FROM channel_outbound WHERE message_id = $1`,
        [welcome.json().id],
      );
      expect(row).toMatchObject({ status: 'refused', error_code: '132000' });
      expect(row!.error_text).toMatch(/^Die Anzahl der Parameter passt nicht zur Vorlage/);
    });

    it('a header parameter, named body parameters, a URL button and a document header: listed with what each fills, sent as Meta checks them; bad values and parts the inbox cannot fill are refused in words', async () => {
      const { app, db, ctx } = get();
      const { sendDueNow } = await import('../../src/modules/messaging/sender.js');
      fake.templates.meta.push(
        {
          id: '9001',
          name: 'kurs_termin',
          language: 'de',
          status: 'APPROVED',
          category: 'UTILITY',
          components: [
            { type: 'HEADER', format: 'TEXT', text: 'Kurs {{1}}', example: { header_text: ['Yoga'] } },
            {
              type: 'BODY',
              text: 'Hallo {{name}}, Ihr Kurs beginnt am {{datum}}.',
              example: {
                body_text_named_params: [
                  { param_name: 'name', example: 'Anna' },
                  { param_name: 'datum', example: '3. Dezember' },
                ],
              },
            },
            { type: 'FOOTER', text: 'Studio Mitte' },
            {
              type: 'BUTTONS',
              buttons: [
                {
                  type: 'URL',
                  text: 'Termin ansehen',
                  url: 'https://studio.example/t/{{1}}',
                  example: ['https://studio.example/t/abc'],
                },
                { type: 'QUICK_REPLY', text: 'Passt' },
              ],
            },
          ],
        },
        {
          id: '9002',
          name: 'rechnung',
          language: 'de',
          status: 'APPROVED',
          category: 'UTILITY',
          components: [
            { type: 'HEADER', format: 'DOCUMENT' },
            { type: 'BODY', text: 'Ihre Rechnung {{1}} ist da.' },
          ],
        },
        {
          id: '9003',
          name: 'gutschein',
          language: 'de',
          status: 'APPROVED',
          category: 'MARKETING',
          components: [
            { type: 'BODY', text: 'Ihr Gutschein' },
            { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'SOMMER10' }] },
          ],
        },
      );
      const conversationId = await heldConversation();
      await refresh();

      // The inbox's choice says what each parameter fills, with Meta's examples.
      const choice = await app.inject({
        method: 'GET',
        url: `/api/conversations/${conversationId}/channel/templates`,
        headers: tenant.owner.headers,
      });
      const byName = (name: string) => choice.json().data.find((t: { name: string }) => t.name === name);
      expect(byName('kurs_termin')).toMatchObject({
        header: 'Kurs {{1}}',
        footer: 'Studio Mitte',
        parameter_count: 4,
        sendable: true,
        unsupported: null,
        parameters: [
          { part: 'header', kind: 'text', key: '1', example: 'Yoga' },
          { part: 'body', kind: 'text', key: 'name', example: 'Anna' },
          { part: 'body', kind: 'text', key: 'datum', example: '3. Dezember' },
          {
            part: 'button',
            kind: 'url',
            key: '1',
            button_text: 'Termin ansehen',
            url: 'https://studio.example/t/{{1}}',
            example: 'https://studio.example/t/abc',
          },
        ],
      });
      expect(byName('rechnung')).toMatchObject({
        parameter_count: 2,
        parameters: [{ part: 'header', kind: 'document', key: null }, { part: 'body' }],
      });
      expect(byName('gutschein')).toMatchObject({ sendable: false, parameter_count: 0 });
      expect(byName('gutschein').unsupported).toMatch(/Code kopieren/);

      const send = (payload: object) =>
        app.inject({
          method: 'POST',
          url: `/api/inbox/${conversationId}/template`,
          headers: tenant.owner.headers,
          payload,
        });
      const messages = async () =>
        (await db.query('SELECT id FROM messages WHERE conversation_id = $1', [conversationId])).length;
      const before = await messages();
      const kurs = {
        name: 'kurs_termin',
        language: 'de',
        parameters: ['Pilates', 'Frau Weber', 'Freitag', 'k42'],
      };
      for (const [payload, status, code, words] of [
        [
          { ...kurs, parameters: kurs.parameters.slice(1) },
          422,
          'template_parameters',
          /braucht 4 Parameter/,
        ],
        [
          { ...kurs, parameters: ['Pilates', 'Frau Weber', 'Freitag', 'k 42'] },
          400,
          'field_invalid',
          /Parameter 4 .*Leerzeichen/,
        ],
        [
          { ...kurs, parameters: ['x'.repeat(60), 'Frau Weber', 'Freitag', 'k42'] },
          400,
          'field_invalid',
          /Kopfzeile wäre 65 Zeichen lang; WhatsApp erlaubt höchstens 60/,
        ],
        [
          { name: 'rechnung', language: 'de', parameters: ['http://studio.example/r.pdf', 'R-7'] },
          400,
          'field_invalid',
          /Parameter 1 \(Kopfzeile\) muss ein Link mit https:\/\//,
        ],
        [
          { name: 'rechnung', language: 'de', parameters: ['Rechnung', 'R-7'] },
          400,
          'field_invalid',
          /https/,
        ],
        [{ name: 'gutschein', language: 'de', parameters: [] }, 422, 'template_unsupported', /Code kopieren/],
      ] as const) {
        const res = await send(payload);
        expect(res.statusCode, res.body).toBe(status);
        expect(res.json()).toMatchObject({ code });
        expect(res.json().message).toMatch(words);
      }
      expect(await messages()).toBe(before);

      const ok = await send(kurs);
      expect(ok.statusCode, ok.body).toBe(201);
      expect(ok.json().content).toBe(
        'Kurs Pilates\n\nHallo Frau Weber, Ihr Kurs beginnt am Freitag.\n\nStudio Mitte',
      );
      const bill = await send({
        name: 'rechnung',
        language: 'de',
        parameters: ['https://studio.example/r/7.pdf', 'R-7'],
      });
      expect(bill.statusCode, bill.body).toBe(201);
      expect(bill.json().content).toBe(
        '[Dokument] https://studio.example/r/7.pdf\n\nIhre Rechnung R-7 ist da.',
      );
      await sendDueNow(ctx);
      const templates = sent().filter((m) => m.body.type === 'template');
      expect(templates.map((m) => (m.body.template as { components: unknown[] }).components)).toEqual([
        [
          { type: 'header', parameters: [{ type: 'text', text: 'Pilates' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Frau Weber', parameter_name: 'name' },
              { type: 'text', text: 'Freitag', parameter_name: 'datum' },
            ],
          },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'k42' }] },
        ],
        [
          {
            type: 'header',
            parameters: [{ type: 'document', document: { link: 'https://studio.example/r/7.pdf' } }],
          },
          { type: 'body', parameters: [{ type: 'text', text: 'R-7' }] },
        ],
      ]);
      // Meta's checks took both: accepted, not refused with 132000.
      const rows = await db.query<{ status: string }>(
        'SELECT status FROM channel_outbound WHERE message_id = ANY($1::uuid[]) ORDER BY created_at',
        [[ok.json().id, bill.json().id]],
      );
      expect(rows.map((r) => r.status)).toEqual(['accepted', 'accepted']);

      // Edited at Meta: the components webhook makes the list be read anew, with the new parameters.
      const edited = fake.templates.meta.find((t) => t.name === 'kurs_termin')!;
      edited.components = [{ type: 'BODY', text: 'Hallo {{1}}, neu: {{2}}' }];
      const hook = await postMeta(
        app,
        connectionId,
        {
          object: 'whatsapp_business_account',
          entry: [
            {
              id: WABA,
              time: Math.floor(Date.now() / 1000),
              changes: [
                {
                  field: 'message_template_components_update',
                  value: {
                    message_template_id: 9001,
                    message_template_name: 'kurs_termin',
                    message_template_language: 'de',
                    message_template_element: 'Hallo {{1}}, neu: {{2}}',
                  },
                },
              ],
            },
          ],
        },
        APP_SECRET,
      );
      expect(hook.statusCode).toBe(200);
      await vi.waitUntil(
        async () =>
          (await app.inject({ method: 'GET', url: templatesUrl(), headers: tenant.owner.headers }))
            .json()
            .data.some(
              (t: { name: string; parameter_count: number; header: string | null }) =>
                t.name === 'kurs_termin' && t.parameter_count === 2 && t.header === null,
            ),
        { timeout: 10_000, interval: 50 },
      );
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);
