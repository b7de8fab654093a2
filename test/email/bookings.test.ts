import { afterAll, beforeAll, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createModelProvider } from '../../src/modules/models/index.js';
import { findMailboxById } from '../../src/modules/mailboxes/repository.js';
import { receiveMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addMailbox, POSTMARK_MAILBOX } from './mailbox-setup.js';
import { FakeModelServer } from '../chat/fake-model-server.js';
import { useModel } from '../chat/fixtures.js';
import { createEvent } from '../events/fixtures.js';

describeApp('bookings made by the bot in an e-mail thread', (get) => {
  const model = new FakeModelServer();
  let restore: () => void;

  beforeAll(async () => {
    await model.start();
    const config = testConfig({
      MODEL_PROVIDER: 'openai',
      MODEL_NAME: 'parley-test-model',
      OPENAI_BASE_URL: `${model.url}/v1`,
      OPENAI_API_KEY: 'sk-test-provider-key',
    });
    restore = useModel(get().ctx, createModelProvider(config.model));
  });
  afterAll(async () => {
    restore();
    await model.stop();
  });

  it('carry booking_channel email, in a conversation of channel email; the mail does not show the tag', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const event = await createEvent(app, tenant, { title: 'Yoga am Morgen', bot_id: bot.id }, 'selling');
    const id = await addMailbox(app, tenant, bot.id, POSTMARK_MAILBOX);
    const mailbox = (await findMailboxById(ctx.db, id))!;
    model.queue.push({ kind: 'reply', text: `Ich habe Sie angemeldet. [BOOK:${event.id}]` });
    const outcome = await receiveMail(ctx, mailbox, {
      messageId: `<booking-${Date.now()}@kunde.example>`,
      from: 'anna@kunde.example',
      subject: 'Anmeldung',
      inReplyTo: null,
      references: [],
      text: 'Ich möchte mich für Yoga am Morgen anmelden.',
      headers: {},
      contentType: 'text/plain',
    });
    expect(outcome.status).toBe('answered');
    if (outcome.status !== 'answered') return;
    const bookings = await ctx.db.query<{ booking_channel: string; metadata: { conversation_id?: string } }>(
      'SELECT booking_channel, metadata FROM event_bookings WHERE event_id = $1',
      [event.id],
    );
    expect(bookings).toHaveLength(1);
    expect(bookings[0]!.booking_channel).toBe('email');
    expect(bookings[0]!.metadata.conversation_id).toBe(outcome.conversationId);
    const [conversation] = await ctx.db.query<{ channel: string; sender_id: string }>(
      'SELECT channel, sender_id FROM conversations WHERE id = $1',
      [outcome.conversationId],
    );
    expect(conversation).toEqual({ channel: 'email', sender_id: 'anna@kunde.example' });
    const [outbound] = await ctx.db.query<{ body_text: string }>(
      'SELECT body_text FROM email_outbound WHERE conversation_id = $1',
      [outcome.conversationId],
    );
    expect(outbound!.body_text).toContain('Ich habe Sie angemeldet.');
    expect(outbound!.body_text).not.toContain('[BOOK:');
  });
});
