import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { useModel } from '../chat/fixtures.js';
import { WordModel } from '../voice/helpers.js';
import { startFakeProviders, type FakeProviders } from './fake-providers.js';
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  TWILIO_WHATSAPP_CONNECTION,
  addConnection,
  postTwilioForm,
  takeOverConversation,
} from './setup.js';

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: '', twilio: { sid: ACCOUNT_SID, token: AUTH_TOKEN } });
});
afterAll(() => fake?.close());
afterEach(() => expect(fake.schemaViolations).toEqual([]));

describeApp('Twilio WhatsApp Content templates (official library against a local Content API)', (get) => {
  let tenant: TenantFixture;
  let botId = '';
  let conn: { id: string; webhook_url: string };
  let customer = '';
  let restore: (() => void) | undefined;

  beforeEach(async () => {
    get().ctx.config.messaging.twilioApiBaseUrl = fake.url;
    get().ctx.config.messaging.twilioContentBaseUrl = fake.url;
    fake.reset();
    tenant = await buildTenant(get().ctx);
    botId = (await tenant.bot()).id;
    conn = await addConnection(get().app, tenant, botId, {
      ...TWILIO_WHATSAPP_CONNECTION,
      quiet_window_ms: 0,
    });
    customer = `+4917${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  });
  afterEach(() => restore?.());

  const post = (params: Record<string, string>) => postTwilioForm(get().app, conn.webhook_url, params);
  const write = (body: string, extra: Record<string, string> = {}) =>
    post({
      MessageSid: `SM${randomUUID().replace(/-/g, '')}`,
      AccountSid: ACCOUNT_SID,
      From: `whatsapp:${customer}`,
      To: `whatsapp:${TWILIO_WHATSAPP_CONNECTION.from_number}`,
      Body: body,
      NumMedia: '0',
      ...extra,
    });
  const toCustomer = () => fake.messages('twilio').filter((r) => r.body.To === `whatsapp:${customer}`);
  const creates = () => fake.requests.filter((r) => r.path === '/v1/Content');
  const addBlock = async (name: string, blockType: 'buttons' | 'list', titles: string[]) => {
    const res = await get().app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/blocks`,
      headers: tenant.owner.headers,
      payload: {
        name,
        block_type: blockType,
        items: titles.map((title) => ({ id: title.toLowerCase(), title })),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  };

  it('sends buttons as a quick-reply content created once, understands a tap, reuses the cached content', async () => {
    await addBlock('Kurse', 'buttons', ['Salsa', 'Tango', 'Walzer']);
    restore = useModel(get().ctx, new WordModel('Welcher Kurs interessiert Sie? [BUTTONS:Kurse]'));
    expect((await write('Welche Kurse gibt es?')).statusCode).toBe(200);
    await vi.waitUntil(() => toCustomer().length >= 1, { timeout: 15_000, interval: 50 });
    expect(creates()).toHaveLength(1);
    const request = creates()[0]!.body as {
      types: Record<string, { actions: { id: string; title: string }[] }>;
    };
    const actions = request.types['twilio/quick-reply']!.actions;
    expect(actions.map((a) => a.title)).toEqual(['Salsa', 'Tango', 'Walzer']);
    const sid = fake.templates.contents[0]!.sid;
    expect(toCustomer()[0]!.body).toMatchObject({ ContentSid: sid });
    expect(toCustomer()[0]!.body.Body).toBeUndefined();

    // The customer taps "Tango": a choice; the bot's next buttons reuse the same content.
    expect((await write('Tango', { ButtonPayload: actions[1]!.id, ButtonText: 'Tango' })).statusCode).toBe(
      200,
    );
    await vi.waitUntil(() => toCustomer().length >= 2, { timeout: 15_000, interval: 50 });
    expect(toCustomer()[1]!.body).toMatchObject({ ContentSid: sid });
    expect(creates()).toHaveLength(1);
    const [inbound] = await get().db.query<{ kind: string }>(
      `SELECT kind FROM channel_inbound WHERE connection_id = $1 AND text = 'Tango'`,
      [conn.id],
    );
    expect(inbound).toEqual({ kind: 'choice' });
  });

  it('sends a list as a list-picker; a block that does not fit, or a refused create, as the numbered list', async () => {
    await addBlock('Tage', 'list', ['Montag', 'Dienstag']);
    await addBlock('Viele', 'buttons', ['Eins', 'Zwei', 'Drei', 'Vier']);
    const model = new WordModel('Welcher Tag passt? [LIST:Tage]');
    restore = useModel(get().ctx, model);
    await write('Wann?');
    await vi.waitUntil(() => toCustomer().length >= 1, { timeout: 15_000, interval: 50 });
    expect(Object.keys((creates()[0]!.body as { types: object }).types)).toEqual(['twilio/list-picker']);
    expect(toCustomer()[0]!.body.ContentSid).toBe(fake.templates.contents[0]!.sid);

    model.reply = 'Was davon? [BUTTONS:Viele]';
    await write('Und sonst?');
    await vi.waitUntil(() => toCustomer().length >= 2, { timeout: 15_000, interval: 50 });
    expect(toCustomer()[1]!.body.Body).toMatch(/1\. Eins\n2\. Zwei\n3\. Drei\n4\. Vier/);
    expect(creates()).toHaveLength(1);

    // Twilio refuses to create the content: the numbered list goes out instead.
    model.reply = 'Noch einmal: welcher Tag? [LIST:Tage]';
    await get().db.query('DELETE FROM channel_contents WHERE connection_id = $1', [conn.id]);
    fake.failNext('twilio', { status: 400, code: 20001, message: 'Invalid content' });
    await write('Nochmal bitte');
    await vi.waitUntil(() => toCustomer().length >= 3, { timeout: 15_000, interval: 50 });
    expect(toCustomer()[2]!.body.Body).toMatch(/1\. Montag\n2\. Dienstag/);
    expect(toCustomer()[2]!.body.ContentSid).toBeUndefined();
  });

  it('after 25 hours sends an approved Content template with its variables; a free reply is refused', async () => {
    const { app, db, ctx } = get();
    fake.templates.contents.push(
      {
        sid: `HX${'a'.repeat(32)}`,
        friendly_name: 'termin_erinnerung',
        language: 'de',
        types: { 'twilio/text': { body: 'Hallo {{1}}, Ihr Termin ist am {{2}}.' } },
        variables: { 1: 'Anna', 2: 'Montag' },
        approval: 'approved',
      },
      {
        sid: `HX${'c'.repeat(32)}`,
        friendly_name: 'termin_link',
        language: 'de',
        types: {
          'twilio/call-to-action': {
            body: 'Ihr Termin steht.',
            actions: [{ type: 'URL', title: 'Ansehen', url: 'https://studio.example/t/{{1}}' }],
          },
        },
        approval: 'approved',
      },
      {
        sid: `HX${'b'.repeat(32)}`,
        friendly_name: 'angebot',
        language: 'de',
        types: { 'twilio/text': { body: 'Angebot' } },
        approval: 'pending',
      },
    );
    const refreshed = await app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/connections/${conn.id}/templates/refresh`,
      headers: tenant.owner.headers,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json().data).toEqual([
      expect.objectContaining({ name: 'angebot', status: 'PENDING', sendable: false }),
      expect.objectContaining({
        name: 'termin_erinnerung',
        status: 'APPROVED',
        parameter_count: 2,
        parameters: [
          expect.objectContaining({ part: 'body', kind: 'text', key: '1', example: 'Anna' }),
          expect.objectContaining({ part: 'body', kind: 'text', key: '2', example: 'Montag' }),
        ],
      }),
      expect.objectContaining({
        name: 'termin_link',
        parameters: [
          expect.objectContaining({
            part: 'button',
            kind: 'url',
            button_text: 'Ansehen',
            url: 'https://studio.example/t/{{1}}',
          }),
        ],
      }),
    ]);

    await write('Hallo');
    await vi.waitUntil(() => toCustomer().length >= 1, { timeout: 15_000, interval: 50 });
    const conversationId = await takeOverConversation(app, db, tenant, conn.id);
    await db.query(
      `UPDATE channel_inbound SET provider_ts = provider_ts - interval '25 hours' WHERE connection_id = $1`,
      [conn.id],
    );
    const late = await app.inject({
      method: 'POST',
      url: `/api/inbox/${conversationId}/reply`,
      headers: tenant.owner.headers,
      payload: { text: 'Noch da?' },
    });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toMatch(/^Das 24-Stunden-Fenster ist geschlossen/);
    const pending = await app.inject({
      method: 'POST',
      url: `/api/inbox/${conversationId}/template`,
      headers: tenant.owner.headers,
      payload: { name: 'angebot', language: 'de', parameters: [] },
    });
    expect(pending.statusCode).toBe(422);
    // A link's end with a space is refused in words before anything is stored.
    const spaced = await app.inject({
      method: 'POST',
      url: `/api/inbox/${conversationId}/template`,
      headers: tenant.owner.headers,
      payload: { name: 'termin_link', language: 'de', parameters: ['k 42'] },
    });
    expect(spaced.statusCode).toBe(400);
    expect(spaced.json()).toMatchObject({ code: 'field_invalid' });
    expect(spaced.json().message).toMatch(/Leerzeichen/);
    const sent = await app.inject({
      method: 'POST',
      url: `/api/inbox/${conversationId}/template`,
      headers: tenant.owner.headers,
      payload: { name: 'termin_erinnerung', language: 'de', parameters: ['Frau Weber', '3. Dezember'] },
    });
    expect(sent.statusCode, sent.body).toBe(201);
    expect(sent.json().content).toBe('Hallo Frau Weber, Ihr Termin ist am 3. Dezember.');
    const { sendDueNow } = await import('../../src/modules/messaging/sender.js');
    await sendDueNow(ctx);
    expect(toCustomer()).toHaveLength(2);
    expect(toCustomer()[1]!.body).toMatchObject({
      ContentSid: `HX${'a'.repeat(32)}`,
      ContentVariables: '{"1":"Frau Weber","2":"3. Dezember"}',
    });
  });
});
