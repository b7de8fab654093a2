import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { RecordingModel, useModel } from '../chat/fixtures.js';
import { startFakeProviders, type FakeProviders } from './fake-providers.js';
import { metaPayload, postMeta } from './meta-helpers.js';
import {
  ACCESS_TOKEN,
  ACCOUNT_SID,
  APP_SECRET,
  AUTH_TOKEN,
  SMS_CONNECTION,
  WHATSAPP_CONNECTION,
  addConnection,
} from './setup.js';

/**
 * A local OpenAI-compatible `POST /v1/audio/transcriptions`: records each upload (the file's
 * bytes and type, the model, the Authorization header) and answers with the next planned text,
 * or the planned error status.
 */
interface Upload {
  auth: string | undefined;
  model: string;
  fileName: string;
  type: string;
  bytes: Buffer;
}
function startTranscriber() {
  const uploads: Upload[] = [];
  const answers: ({ text: string } | { status: number })[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
          res.writeHead(404).end();
          return;
        }
        // The multipart body, read as the provider would.
        const form = await new Request('http://transcriber.local/', {
          method: 'POST',
          headers: { 'content-type': String(req.headers['content-type']) },
          body: Buffer.concat(chunks),
        }).formData();
        const file = form.get('file') as File;
        uploads.push({
          auth: req.headers.authorization,
          model: String(form.get('model')),
          fileName: file.name,
          type: file.type,
          bytes: Buffer.from(await file.arrayBuffer()),
        });
        const answer = answers.shift() ?? { text: '' };
        if ('status' in answer) {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'overloaded' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      })();
    });
  });
  return new Promise<{
    url: string;
    uploads: Upload[];
    answers: typeof answers;
    close: () => Promise<void>;
  }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        uploads,
        answers,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

const OGG = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(2000, 7)]);
const TRANSCRIPT = 'Wann habt ihr am Samstag geöffnet?';
const NOTICE = 'Sprachnachrichten kann ich nicht anhören';

let fake: FakeProviders;
let transcriber: Awaited<ReturnType<typeof startTranscriber>>;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: ACCESS_TOKEN, twilio: { sid: ACCOUNT_SID, token: AUTH_TOKEN } });
  transcriber = await startTranscriber();
});
afterAll(async () => {
  await fake?.close();
  await transcriber?.close();
});
afterEach(() => expect(fake.schemaViolations).toEqual([]));

function voiceNote(from: string, mediaId: string) {
  return {
    from,
    id: `wamid.IN${randomUUID().replace(/-/g, '')}`,
    timestamp: String(Math.floor(Date.now() / 1000)),
    type: 'audio',
    audio: { id: mediaId, mime_type: 'audio/ogg; codecs=opus', voice: true },
  };
}

describeApp('voice notes on WhatsApp and SMS, transcribed by an OpenAI-compatible provider', (get) => {
  let model: RecordingModel;
  let restore: () => void;
  let customer = '';

  beforeEach(() => {
    const { ctx } = get();
    ctx.config.messaging.graphBaseUrl = fake.graphBase;
    ctx.config.messaging.twilioApiBaseUrl = fake.url;
    ctx.config.messaging.transcription.baseUrl = transcriber.url;
    ctx.config.messaging.transcription.apiKey = 'sk-transcription-not-shown';
    ctx.config.messaging.transcription.maxBytes = 16 * 1024 * 1024;
    fake.reset();
    transcriber.uploads.length = 0;
    transcriber.answers.length = 0;
    model = new RecordingModel();
    model.answer = async () => ({
      text: 'Samstags von 9 bis 14 Uhr.',
      model: 'recording-model',
      promptTokens: 5,
      completionTokens: 5,
    });
    restore = useModel(ctx, model);
    customer = String(4917000000000 + Math.floor(Math.random() * 99_999_999));
  });
  afterEach(() => {
    restore();
    get().ctx.config.messaging.transcription.baseUrl = undefined;
  });

  async function whatsapp() {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    return addConnection(get().app, tenant, bot.id, { ...WHATSAPP_CONNECTION, quiet_window_ms: 100 });
  }
  const postVoiceNotes = (connectionId: string, messages: object[]) =>
    postMeta(
      get().app,
      connectionId,
      metaPayload(WHATSAPP_CONNECTION.phone_number_id, { messages }),
      APP_SECRET,
    );
  const sentTo = (to: string) => fake.messages('meta').filter((r) => r.body.to === to);
  const textOf = (r: { body: Record<string, unknown> }) => (r.body.text as { body: string }).body;

  it('WhatsApp: fetches the audio with the access token, transcribes it and answers the transcript', async () => {
    const { db } = get();
    const conn = await whatsapp();
    const mediaId = `7${Date.now()}`;
    fake.addMedia(mediaId, OGG, 'audio/ogg');
    transcriber.answers.push({ text: ` ${TRANSCRIPT} ` });
    const res = await postVoiceNotes(conn.id, [voiceNote(customer, mediaId)]);
    expect(res.statusCode).toBe(200);
    await vi.waitUntil(() => sentTo(customer).length === 1, { timeout: 15_000, interval: 25 });

    expect(textOf(sentTo(customer)[0]!)).toBe('Samstags von 9 bis 14 Uhr.');
    // The model was asked the transcript, as a customer's text.
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages.at(-1)!.content).toContain(TRANSCRIPT);
    // Meta: the media id's URL, then the bytes, both with the connection's token.
    expect(fake.mediaRequests.map((r) => r.path)).toEqual([
      `/v23.0/${mediaId}`,
      `/media-download/${mediaId}`,
    ]);
    expect(fake.mediaRequests.every((r) => r.auth === `Bearer ${ACCESS_TOKEN}`)).toBe(true);
    // The provider got the audio as it was, with the configured model and key.
    expect(transcriber.uploads).toHaveLength(1);
    expect(transcriber.uploads[0]).toMatchObject({
      auth: 'Bearer sk-transcription-not-shown',
      model: 'whisper-1',
      fileName: 'voice-note.ogg',
      type: 'audio/ogg',
    });
    expect(transcriber.uploads[0]!.bytes.equals(OGG)).toBe(true);
    const rows = await db.query<{ kind: string; text: string; status: string }>(
      'SELECT kind, text, status FROM channel_inbound WHERE connection_id = $1',
      [conn.id],
    );
    expect(rows).toEqual([{ kind: 'voice', text: TRANSCRIPT, status: 'answered' }]);
  });

  it('WhatsApp: a provider that fails gets the polite only-text notice, and the model is not asked', async () => {
    const conn = await whatsapp();
    const mediaId = `8${Date.now()}`;
    fake.addMedia(mediaId, OGG, 'audio/ogg');
    transcriber.answers.push({ status: 503 });
    await postVoiceNotes(conn.id, [voiceNote(customer, mediaId)]);
    await vi.waitUntil(() => sentTo(customer).length === 1, { timeout: 15_000, interval: 25 });
    expect(textOf(sentTo(customer)[0]!)).toContain(NOTICE);
    expect(transcriber.uploads).toHaveLength(1);
    expect(model.requests).toHaveLength(0);
  });

  it('WhatsApp: a voice note larger than TRANSCRIPTION_MAX_BYTES is not downloaded, and one of an unknown id not transcribed', async () => {
    const { ctx } = get();
    const conn = await whatsapp();
    ctx.config.messaging.transcription.maxBytes = 1024;
    const mediaId = `9${Date.now()}`;
    fake.addMedia(mediaId, OGG, 'audio/ogg');
    const other = String(Number(customer) + 1);
    await postVoiceNotes(conn.id, [voiceNote(customer, mediaId), voiceNote(other, '123456')]);
    await vi.waitUntil(() => sentTo(customer).length === 1 && sentTo(other).length === 1, {
      timeout: 15_000,
      interval: 25,
    });
    expect(textOf(sentTo(customer)[0]!)).toContain(NOTICE);
    expect(textOf(sentTo(other)[0]!)).toContain(NOTICE);
    // Only the metadata was read: its size was over the limit; the unknown id was a 404.
    expect(fake.mediaRequests.map((r) => r.path).sort()).toEqual(
      ['/v23.0/123456', `/v23.0/${mediaId}`].sort(),
    );
    expect(transcriber.uploads).toHaveLength(0);
  });

  it("WhatsApp: an opted-out customer's voice note is neither downloaded nor transcribed, and the turn is refused as opted out", async () => {
    const { db } = get();
    const conn = await whatsapp();
    // Opted out as the provider reports it (Meta's 131050 "user stopped marketing messages" and
    // the like; on WhatsApp STOP is no keyword of ours).
    await db.query('INSERT INTO channel_opt_outs (connection_id, number) VALUES ($1, $2)', [
      conn.id,
      `+${customer}`,
    ]);
    const mediaId = `5${Date.now()}`;
    fake.addMedia(mediaId, OGG, 'audio/ogg');
    transcriber.answers.push({ text: TRANSCRIPT });
    await postVoiceNotes(conn.id, [voiceNote(customer, mediaId)]);
    const settled = () =>
      db.query<{ status: string; skip_reason: string | null }>(
        `SELECT status, skip_reason FROM channel_inbound WHERE connection_id = $1 AND kind = 'voice'`,
        [conn.id],
      );
    await vi.waitUntil(async () => (await settled())[0]?.status === 'skipped', {
      timeout: 15_000,
      interval: 25,
    });
    expect(await settled()).toEqual([{ status: 'skipped', skip_reason: 'opted_out' }]);
    expect(fake.mediaRequests).toHaveLength(0);
    expect(transcriber.uploads).toHaveLength(0);
    expect(model.requests).toHaveLength(0);
    // Nothing went out: no notice, no answer.
    expect(sentTo(customer)).toHaveLength(0);
    const refusals = await db.query<{ guard: string }>(
      'SELECT guard FROM conversation_refusals WHERE sender_id = $1',
      [`+${customer}`],
    );
    expect(refusals).toEqual([{ guard: 'messaging_opt_out' }]);
  });

  it('without a transcription provider a voice note gets the notice at once, and nothing is downloaded', async () => {
    const { ctx } = get();
    ctx.config.messaging.transcription.baseUrl = undefined;
    const conn = await whatsapp();
    const mediaId = `6${Date.now()}`;
    fake.addMedia(mediaId, OGG, 'audio/ogg');
    await postVoiceNotes(conn.id, [voiceNote(customer, mediaId)]);
    await vi.waitUntil(() => sentTo(customer).length === 1, { timeout: 15_000, interval: 25 });
    expect(textOf(sentTo(customer)[0]!)).toContain(NOTICE);
    expect(fake.mediaRequests).toHaveLength(0);
    expect(model.requests).toHaveLength(0);
  });

  it('Twilio: MediaUrl0 with basic auth, the redirect to the media store without it; a media URL on another host is never fetched', async () => {
    const { app } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const conn = await addConnection(app, tenant, bot.id, { ...SMS_CONNECTION, quiet_window_ms: 100 });
    const from = `+${customer}`;
    const mediaId = `ME${Date.now()}`;
    const { twilioUrl } = fake.addMedia(mediaId, OGG, 'audio/ogg');
    transcriber.answers.push({ text: TRANSCRIPT });
    const post = (params: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: conn.webhook_url.slice(conn.webhook_url.indexOf('/v1/channels/')),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, conn.webhook_url, params),
        },
        payload: new URLSearchParams(params).toString(),
      });
    const form = (sender: string, mediaUrl: string) => ({
      MessageSid: `MM${randomUUID().replace(/-/g, '')}`,
      AccountSid: ACCOUNT_SID,
      From: sender,
      To: SMS_CONNECTION.from_number,
      Body: '',
      NumMedia: '1',
      MediaUrl0: mediaUrl,
      MediaContentType0: 'audio/ogg',
    });
    expect((await post(form(from, twilioUrl))).statusCode).toBe(200);
    const elsewhere = `+${Number(customer) + 2}`;
    expect((await post(form(elsewhere, `http://127.0.0.2:9/${mediaId}`))).statusCode).toBe(200);
    const toNumber = (n: string) => fake.messages('twilio').filter((r) => r.body.To === n);
    await vi.waitUntil(() => toNumber(from).length === 1 && toNumber(elsewhere).length === 1, {
      timeout: 15_000,
      interval: 25,
    });
    expect(toNumber(from)[0]!.body.Body).toBe('Samstags von 9 bis 14 Uhr.');
    expect(toNumber(elsewhere)[0]!.body.Body).toContain(NOTICE);
    const basic = `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`;
    expect(fake.mediaRequests).toEqual([
      { path: new URL(twilioUrl).pathname, auth: basic },
      { path: `/twilio-media-store/${mediaId}`, auth: undefined },
    ]);
    expect(transcriber.uploads).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });
});
