import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addKnowledge, useModel } from '../chat/fixtures.js';
import { createEvent } from '../events/fixtures.js';
import type { VoiceConnection } from '../../src/modules/voice/connection.js';
import { checkTwiml, elementsOf } from './twiml-check.js';
import { connectionTable, postSigned, RelaySimulator, voiceConnection, WordModel } from './helpers.js';
import { turnAnswer } from '../../src/modules/voice/repository.js';
import { waitFor } from '../helpers/net.js';

let sids = 0;
const callSid = () => `CA${Date.now().toString(16)}${(sids++).toString(16).padStart(8, '0')}`.padEnd(34, '0');

describeApp('voice calls', (get) => {
  let table: Map<string, VoiceConnection>;
  let port: number;
  let restore: (() => void) | undefined;
  beforeAll(async () => {
    table = connectionTable(get().ctx);
    await get().app.listen({ port: 0, host: '127.0.0.1' });
    port = (get().app.server.address() as AddressInfo).port;
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  async function setUp(fields: Partial<VoiceConnection> = {}) {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const connection = voiceConnection(tenant.id, bot.id, fields);
    table.set(connection.id, connection);
    return { tenant, bot, connection };
  }

  const messagesOf = (conversationId: string) =>
    get().db.query<{ role: string; content: string; channel: string }>(
      'SELECT role, content, channel FROM messages WHERE conversation_id = $1 ORDER BY seq',
      [conversationId],
    );

  it('checks Twilio signatures: a changed parameter, a wrong URL, a wrong token and none are refused', async () => {
    const { connection } = await setUp();
    const form = { CallSid: callSid(), From: '+491701234567', To: connection.phoneNumber };
    const ok = await postSigned(get().app, connection, 'incoming', form);
    expect(ok.statusCode).toBe(200);
    const changed = await postSigned(
      get().app,
      connection,
      'incoming',
      { ...form, From: '+491709999999' },
      {
        signedForm: form,
      },
    );
    expect(changed.statusCode).toBe(403);
    const wrongUrl = await postSigned(get().app, connection, 'incoming', form, {
      signedUrl: `https://evil.example.test/v1/channels/${connection.id}/voice/incoming`,
    });
    expect(wrongUrl.statusCode).toBe(403);
    const wrongToken = await postSigned(get().app, connection, 'incoming', form, { token: 'not-the-token' });
    expect(wrongToken.statusCode).toBe(403);
    const unsigned = await get().app.inject({
      method: 'POST',
      url: `/v1/channels/${connection.id}/voice/incoming`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    expect(unsigned.statusCode).toBe(401);
    const unknown = await postSigned(get().app, { ...connection, id: 'unknown' }, 'incoming', form);
    expect(unknown.statusCode).toBe(404);
    // A replayed request is the same call: one record, the same answer.
    const replay = await postSigned(get().app, connection, 'incoming', form);
    expect(replay.body).toBe(ok.body);
    const calls = await get().db.query('SELECT 1 FROM voice_calls WHERE call_sid = $1', [form.CallSid]);
    expect(calls).toHaveLength(1);
  });

  it('answers an incoming call with ConversationRelay, and refuses the socket without a valid signature', async () => {
    const { connection } = await setUp({ greeting: 'Willkommen bei der Tanzschule!' });
    const res = await postSigned(get().app, connection, 'incoming', {
      CallSid: callSid(),
      From: '+491701234567',
    });
    expect(res.headers['content-type']).toMatch(/^text\/xml/);
    const root = checkTwiml(res.body);
    const relay = elementsOf(root).find((e) => e.name === 'ConversationRelay')!;
    expect(relay.attributes).toMatchObject({
      url: `wss://voice.example.test/v1/channels/${connection.id}/voice/relay`,
      welcomeGreeting: 'Willkommen bei der Tanzschule!',
      interruptible: 'any',
    });
    expect(root.children[0]!.attributes.action).toBe(
      `https://voice.example.test/v1/channels/${connection.id}/voice/handoff`,
    );
    expect(await RelaySimulator.connect(port, connection, { token: 'wrong' })).toEqual({ rejected: 403 });
    expect(await RelaySimulator.connect(port, connection, { url: 'wss://elsewhere.test/relay' })).toEqual({
      rejected: 403,
    });
  });

  it('answers from knowledge in words, books by voice after the read-back, and hands over with context', async () => {
    const { ctx, db } = get();
    const { tenant, bot, connection } = await setUp();
    await addKnowledge(ctx, tenant.id, bot.id, {
      title: 'Öffnungszeiten',
      content: 'Unsere Öffnungszeiten: Montag bis Freitag von 9:00 bis 18:30 Uhr.',
    });
    const event = await createEvent(
      get().app,
      tenant,
      { title: 'Salsa für Anfänger', event_date: '2030-06-01', event_time_start: '18:00' },
      'selling',
    );
    const sid = callSid();
    const caller = '+491701234567';
    const incoming = await postSigned(get().app, connection, 'incoming', { CallSid: sid, From: caller });
    expect(incoming.statusCode).toBe(200);
    const sim = (await RelaySimulator.connect(port, connection)) as RelaySimulator;
    sim.setup(sid, caller);
    sim.prompt('Was sind Ihre Öffnungszeiten?');
    const hours = await sim.turnText(1);
    expect(hours).toContain('neun Uhr');
    expect(hours).toContain('achtzehn Uhr dreißig');
    expect(hours).not.toMatch(/\d/);
    const call = (
      await db.query<{ conversation_id: string }>(
        'SELECT conversation_id FROM voice_calls WHERE call_sid = $1',
        [sid],
      )
    )[0]!;
    const conversation = (
      await db.query<{ channel: string; sender_id: string }>(
        'SELECT channel, sender_id FROM conversations WHERE id = $1',
        [call.conversation_id],
      )
    )[0]!;
    expect(conversation).toEqual({ channel: 'voice', sender_id: caller });
    const contacts = await db.query('SELECT 1 FROM contacts WHERE tenant_id = $1 AND phone = $2', [
      tenant.id,
      caller,
    ]);
    expect(contacts).toHaveLength(1);

    // A booking tag is read back in words; "ja" books it with the voice channel.
    restore = useModel(ctx, new WordModel(`Sehr gerne, ich buche den Kurs für Sie. [BOOK:${event.id}]`));
    sim.prompt('Ich möchte den Salsakurs buchen.');
    const readBack = await sim.turnText(2);
    expect(readBack).toContain('Salsa für Anfänger am ersten Juni zweitausenddreißig um achtzehn Uhr');
    expect(readBack).toContain('Sagen Sie ja oder drücken Sie eins.');
    expect(await db.query('SELECT 1 FROM event_bookings WHERE event_id = $1', [event.id])).toHaveLength(0);
    sim.prompt('Ja.');
    expect(await sim.turnText(3)).toBe('Ihre Buchung für Salsa für Anfänger ist bestätigt.');
    const bookings = await db.query<{ booking_channel: string }>(
      'SELECT booking_channel FROM event_bookings WHERE event_id = $1',
      [event.id],
    );
    expect(bookings).toEqual([{ booking_channel: 'voice' }]);
    restore();
    restore = undefined;

    // Asking for a person ends the relay with the hand-over's context.
    sim.prompt('Ich möchte bitte mit einem Mitarbeiter sprechen.');
    const end = await sim.waitFor((m) => m.type === 'end');
    const data = JSON.parse(String(end.handoffData)) as Record<string, unknown>;
    expect(data).toMatchObject({ reason: 'handover', conversationId: call.conversation_id });
    expect(data.summary).toContain('Mitarbeiter');
    sim.close();
    const action = await postSigned(get().app, connection, 'handoff', {
      CallSid: sid,
      HandoffData: String(end.handoffData),
    });
    const dial = checkTwiml(action.body);
    expect(dial.children.map((c) => c.name)).toEqual(['Say', 'Dial']);
    expect(dial.children[1]!.text).toBe(connection.handoffNumber);
    const inbox = await db.query<{ status: string }>('SELECT status FROM conversations WHERE id = $1', [
      call.conversation_id,
    ]);
    expect(inbox[0]!.status).toBe('handed_over');
    const transcript = await messagesOf(call.conversation_id);
    expect(transcript.filter((m) => m.role === 'user').map((m) => m.content)).toContain(
      'Was sind Ihre Öffnungszeiten?',
    );

    // The call's status callback stores the outcome and its duration.
    const status = await postSigned(get().app, connection, 'status', {
      CallSid: sid,
      CallStatus: 'completed',
      CallDuration: '95',
    });
    expect(status.statusCode).toBe(204);
    const stored = await db.query('SELECT status, duration_seconds FROM voice_calls WHERE call_sid = $1', [
      sid,
    ]);
    expect(stored).toEqual([{ status: 'completed', duration_seconds: 95 }]);
  });

  it('stops the stream at an interrupt and stores what was spoken', async () => {
    const { ctx, db } = get();
    const { connection } = await setUp();
    const model = new WordModel(
      `${'Das ist eine sehr lange Antwort über unsere vielen Kurse '.repeat(20)}.`,
      20,
    );
    restore = useModel(ctx, model);
    const sid = callSid();
    await postSigned(get().app, connection, 'incoming', { CallSid: sid, From: '+491705550000' });
    const sim = (await RelaySimulator.connect(port, connection)) as RelaySimulator;
    sim.setup(sid, '+491705550000');
    sim.prompt('Erzählen Sie mir alles über Ihre Kurse.');
    await sim.waitFor(() => sim.received.filter((m) => m.type === 'text').length >= 3);
    sim.send({
      type: 'interrupt',
      utteranceUntilInterrupt: 'Das ist eine sehr lange Antwort',
      durationUntilInterruptMs: 1200,
    });
    await new Promise((r) => setTimeout(r, 100));
    const count = sim.received.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(sim.received.length).toBe(count);
    expect(sim.received.some((m) => m.type === 'text' && m.last === true)).toBe(false);
    await expect
      .poll(async () => {
        const rows = await db.query<{ content: string }>(
          `SELECT m.content FROM messages m JOIN voice_calls v ON v.conversation_id = m.conversation_id
         WHERE v.call_sid = $1 AND m.role = 'assistant'`,
          [sid],
        );
        return rows.map((r) => r.content);
      })
      .toEqual(['Das ist eine sehr lange Antwort']);
    sim.close();
  });

  it('understands a key press as the choice of a block', async () => {
    const { ctx } = get();
    const { tenant, bot, connection } = await setUp();
    const block = await get().app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/blocks`,
      headers: tenant.owner.headers,
      payload: {
        name: 'Kurse',
        block_type: 'buttons',
        items: [
          { id: 'salsa', title: 'Salsa' },
          { id: 'tango', title: 'Tango' },
          { id: 'walzer', title: 'Walzer' },
        ],
      },
    });
    expect(block.statusCode, block.body).toBe(201);
    restore = useModel(ctx, new WordModel('Welcher Kurs interessiert Sie? [BUTTONS:Kurse]'));
    const sid = callSid();
    await postSigned(get().app, connection, 'incoming', { CallSid: sid, From: '+491705551111' });
    const sim = (await RelaySimulator.connect(port, connection)) as RelaySimulator;
    sim.setup(sid, '+491705551111');
    sim.prompt('Welche Kurse gibt es?');
    expect(await sim.turnText(1)).toContain(
      'Sagen Sie Salsa, Tango oder Walzer – oder drücken Sie 1, 2 oder 3.',
    );
    sim.send({ type: 'dtmf', digit: '2' });
    await sim.turnText(2);
    const rows = await get().db.query<{ content: string }>(
      `SELECT m.content FROM messages m JOIN voice_calls v ON v.conversation_id = m.conversation_id
       WHERE v.call_sid = $1 AND m.role = 'user' ORDER BY m.seq`,
      [sid],
    );
    expect(rows.map((r) => r.content)).toEqual(['Welche Kurse gibt es?', 'Tango']);
    sim.close();
  });

  it('runs the Gather loop: filler while the model is slow, then the answer; a retried turn answers once', async () => {
    const { ctx } = get();
    const { connection } = await setUp({ mode: 'gather' });
    const sid = callSid();
    const incoming = checkTwiml(
      (await postSigned(get().app, connection, 'incoming', { CallSid: sid, From: '+491706660000' })).body,
    );
    const gather = incoming.children[0]!;
    expect(gather.attributes).toMatchObject({
      input: 'speech dtmf',
      speechTimeout: 'auto',
      language: 'de-DE',
    });
    expect(gather.attributes.action).toBe(
      `https://voice.example.test/v1/channels/${connection.id}/voice/turn?n=1`,
    );
    const model = new WordModel('Der Kurs kostet 12,50 €.', 0, 2000);
    restore = useModel(ctx, model);
    const first = await postSigned(get().app, connection, 'turn?n=1', {
      CallSid: sid,
      SpeechResult: 'Was kostet der Kurs?',
    });
    const filler = checkTwiml(first.body);
    expect(filler.children.map((c) => c.name)).toEqual(['Say', 'Pause', 'Redirect']);
    expect(filler.children[0]!.text).toBe('Einen Moment bitte …');
    // Twilio retries the same turn: it is not answered a second time.
    const retry = checkTwiml(
      (
        await postSigned(get().app, connection, 'turn?n=1', {
          CallSid: sid,
          SpeechResult: 'Was kostet der Kurs?',
        })
      ).body,
    );
    expect(retry.children[0]!.name).toBe('Say');
    await waitFor(
      async () => Boolean((await turnAnswer(ctx.db, sid, 1))?.answer),
      10_000,
      'the answer of turn 1',
    );
    const poll = checkTwiml(
      (await postSigned(get().app, connection, 'poll?n=1&attempt=1', { CallSid: sid })).body,
    );
    expect(poll.children[0]!.name).toBe('Gather');
    expect(poll.children[0]!.children[0]!.text).toBe('Der Kurs kostet zwölf Euro fünfzig.');
    expect(poll.children[0]!.attributes.action).toContain('turn?n=2');
    const again = await postSigned(get().app, connection, 'turn?n=1', {
      CallSid: sid,
      SpeechResult: 'Was kostet der Kurs?',
    });
    expect(checkTwiml(again.body).children[0]!.children[0]!.text).toBe('Der Kurs kostet zwölf Euro fünfzig.');
    expect(model.calls).toBe(1);
    // Two silent prompts: goodbye.
    const silent1 = checkTwiml(
      (await postSigned(get().app, connection, 'turn?n=2&silence=1', { CallSid: sid })).body,
    );
    expect(silent1.children[0]!.children[0]!.text).toContain('Sind Sie noch da');
    const silent2 = checkTwiml(
      (await postSigned(get().app, connection, 'turn?n=3&silence=1', { CallSid: sid })).body,
    );
    expect(silent2.children.map((c) => c.name)).toEqual(['Say', 'Hangup']);
  });

  it('answers with a short message when the bot is off, the quota is used up or the caller calls too often', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const off = await tenant.bot({ is_active: false });
    const offConnection = voiceConnection(tenant.id, off.id);
    table.set(offConnection.id, offConnection);
    const res = checkTwiml(
      (await postSigned(get().app, offConnection, 'incoming', { CallSid: callSid(), From: '+491707770000' }))
        .body,
    );
    expect(res.children.map((c) => c.name)).toEqual(['Say', 'Hangup']);
    expect(res.children[0]!.text).toContain('nicht erreichbar');
    const empty = await buildTenant(ctx, { quota: 0 });
    const bot = await empty.bot();
    const quotaConnection = voiceConnection(empty.id, bot.id);
    table.set(quotaConnection.id, quotaConnection);
    const quota = checkTwiml(
      (
        await postSigned(get().app, quotaConnection, 'incoming', {
          CallSid: callSid(),
          From: '+491707770000',
        })
      ).body,
    );
    expect(quota.children.map((c) => c.name)).toEqual(['Say', 'Hangup']);
    const { connection } = await setUp({ callsPerCallerPerHour: 2 });
    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(
        checkTwiml(
          (await postSigned(get().app, connection, 'incoming', { CallSid: callSid(), From: '+491708880000' }))
            .body,
        ),
      );
    }
    expect(answers.map((a) => a.children[0]!.name)).toEqual(['Connect', 'Connect', 'Say']);
    expect(answers[2]!.children[0]!.text).toContain('schon oft angerufen');
  });

  it('says the closed message outside opening hours and keeps the conversation in the inbox', async () => {
    const { connection } = await setUp({
      openingHours: { timeZone: 'Europe/Berlin', days: {} },
    });
    const sid = callSid();
    await postSigned(get().app, connection, 'incoming', { CallSid: sid, From: '+491709990000' });
    const action = checkTwiml(
      (
        await postSigned(get().app, connection, 'handoff', {
          CallSid: sid,
          HandoffData: JSON.stringify({
            reason: 'handover',
            conversationId: null,
            summary: null,
            message: null,
            language: 'de',
          }),
        })
      ).body,
    );
    expect(action.children.map((c) => c.name)).toEqual(['Say', 'Hangup']);
    expect(action.children[0]!.text).toContain('Im Moment ist niemand erreichbar');
    const none = checkTwiml((await postSigned(get().app, connection, 'handoff', { CallSid: sid })).body);
    expect(none.children.map((c) => c.name)).toEqual(['Hangup']);
  });
});
