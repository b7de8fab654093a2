import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { SMS_PREFERRED_CHARS } from '../../src/modules/channels/registry.js';
import type { ModelProvider, ModelReply, ModelRequest } from '../../src/modules/models/provider.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { waitFor } from '../helpers/net.js';
import { send, startSession, widgetBot } from '../widget/helpers.js';
import { startFakeProviders, type FakeProviders } from './fake-providers.js';
import { ACCOUNT_SID, AUTH_TOKEN, SMS_CONNECTION, addConnection, postTwilioForm } from './setup.js';

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: '', twilio: { sid: ACCOUNT_SID, token: AUTH_TOKEN } });
});
afterAll(() => fake?.close());
// Every request Parley sent matched the provider's published schema.
afterEach(() => expect(fake.schemaViolations).toEqual([]));

/** A model that answers briefly and keeps every request it was given. */
function recordingModel(seen: ModelRequest[]): ModelProvider {
  const reply: ModelReply = {
    text: 'Gern, bis morgen.',
    model: 'stub',
    promptTokens: 1,
    completionTokens: 1,
  };
  return {
    name: 'stub',
    generate: async (request) => {
      seen.push(request);
      return reply;
    },
    async *stream(request) {
      seen.push(request);
      yield { type: 'delta' as const, text: reply.text };
      yield { type: 'done' as const, reply };
    },
  };
}

const HINT = `höchstens ${SMS_PREFERRED_CHARS} Zeichen`;

describeApp('the SMS channel tells the model to keep replies short', (get) => {
  it('an SMS turn’s system prompt holds the SMS instruction; a widget turn’s does not', async () => {
    const t = get();
    t.ctx.config.messaging.twilioApiBaseUrl = fake.url;
    const seen: ModelRequest[] = [];
    const previous = t.ctx.model;
    t.ctx.model = recordingModel(seen);
    try {
      const tenant = await buildTenant(t.ctx);
      const botId = (await tenant.bot()).id;
      const conn = await addConnection(t.app, tenant, botId, { ...SMS_CONNECTION, quiet_window_ms: 0 });
      const customer = `+4917${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
      const params = {
        MessageSid: `SM${randomUUID().replace(/-/g, '')}`,
        AccountSid: ACCOUNT_SID,
        From: customer,
        To: SMS_CONNECTION.from_number,
        Body: 'Habt ihr morgen offen?',
        NumMedia: '0',
      };
      const res = await postTwilioForm(t.app, conn.webhook_url, params);
      expect(res.statusCode).toBe(200);
      await waitFor(
        () => fake.messages('twilio').some((r) => r.body.To === customer),
        10_000,
        'the SMS reply',
      );
      expect(seen).toHaveLength(1);
      expect(seen[0]!.system).toContain('## Kanal: SMS');
      expect(seen[0]!.system).toContain(HINT);

      const widgetTenant = await buildTenant(t.ctx);
      const { publishableKey } = await widgetBot(t, widgetTenant);
      const session = await startSession(t, publishableKey);
      expect((await send(t, session, { text: 'Habt ihr morgen offen?' })).statusCode).toBe(200);
      expect(seen).toHaveLength(2);
      expect(seen[1]!.system).not.toContain('## Kanal: SMS');
      expect(seen[1]!.system).not.toContain(HINT);
    } finally {
      t.ctx.model = previous;
    }
  });
});
