import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/database.js';
import type { ChatExtension } from '../../src/modules/chat/extensions.js';
import { converse } from '../../src/modules/chat/pipeline/engine.js';
import type {
  ChannelDelivery,
  InboundMessage,
  OutboundReply,
} from '../../src/modules/chat/pipeline/types.js';
import { pendingReleases } from '../../src/modules/chat/release.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { RecordingModel, useModel } from './fixtures.js';
import { parseSse, sendChat } from './helpers.js';
import { eventually, ledgerOf, settled } from './ledger.js';

describeApp('conversation engine', (get) => {
  const model = new RecordingModel();
  let restore: () => void;
  let tenant: TenantFixture;
  let botId: string;

  beforeAll(async () => {
    restore = useModel(get().ctx, model);
  });
  afterAll(() => restore());
  afterEach(() => {
    model.requests.length = 0;
    model.answer = async () => ({
      text: 'Aufgezeichnete Antwort.',
      model: 'recording-model',
      promptTokens: 20,
      completionTokens: 5,
    });
  });

  async function freshBot(): Promise<void> {
    tenant = await buildTenant(get().ctx);
    botId = (await tenant.bot()).id;
  }

  function inbound(message: string, conversationId: string | null = null): InboundMessage {
    return {
      tenantId: tenant.id,
      botId,
      input: { message, senderId: 'kanal-kunde', channel: 'email', conversationId, metadata: {} },
      idempotencyKey: null,
    };
  }

  /** A delivery that records what it was given and where (the exchange's transaction). */
  function recordingDelivery(fail = false): ChannelDelivery & { sent: OutboundReply[] } {
    const sent: OutboundReply[] = [];
    return {
      sent,
      async enqueue(tx: Queryable, reply: OutboundReply) {
        // The exchange is visible inside the same transaction, before it commits.
        const [row] = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1 AND role = 'assistant'`,
          [reply.conversationId],
        );
        expect(row!.n).toBeGreaterThan(0);
        if (fail) throw new Error('outbox refused the row');
        sent.push(reply);
      },
    };
  }

  /** Temporarily adds an extension (e.g. a flow deciding before the model). */
  function withExtension(extension: ChatExtension): () => void {
    const extensions = get().ctx.chatExtensions;
    extensions.unshift(extension);
    return () => void extensions.splice(extensions.indexOf(extension), 1);
  }

  it('hands the reply of a channel message to its delivery, in the transaction that stores the exchange', async () => {
    await freshBot();
    const delivery = recordingDelivery();
    const outcome = await converse(get().ctx, inbound('Wann habt ihr offen?'), { delivery });
    expect(outcome?.response.reply).toBe('Aufgezeichnete Antwort.');
    expect(delivery.sent).toEqual([
      {
        tenantId: tenant.id,
        botId,
        conversationId: outcome!.response.conversation_id,
        channel: 'email',
        recipient: 'kanal-kunde',
        from: 'bot',
        messageId: null,
        text: outcome!.response.reply,
        blocks: outcome!.response.blocks,
        createdAt: expect.any(Date),
      },
    ]);
    expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(1));
  });

  it('stores nothing and charges nothing when the delivery cannot be enqueued', async () => {
    await freshBot();
    await expect(
      converse(get().ctx, inbound('Gibt es Parkplätze?'), { delivery: recordingDelivery(true) }),
    ).rejects.toThrow('outbox refused the row');
    const ledger = await eventually(
      () => ledgerOf(get().db, tenant.id),
      (l) => l.counter === 0,
    );
    expect(ledger).toEqual(settled(0));
    const conversations = await get().db.query('SELECT 1 FROM conversations WHERE tenant_id = $1', [
      tenant.id,
    ]);
    expect(conversations).toHaveLength(0);
  });

  it('lets an extension answer before the model (the flow insertion point), as JSON and as a stream', async () => {
    await freshBot();
    const turns: string[] = [];
    const remove = withExtension({
      name: 'fixed-answer',
      async decide(turn) {
        turns.push(turn.userMessage);
        return turn.userMessage.startsWith('Menü')
          ? { text: 'Bitte wählen Sie: Termine oder Preise.', model: 'flow', actions: [{ type: 'block' }] }
          : null;
      },
    });
    try {
      const json = await sendChat(get(), tenant, botId, { message: 'Menü bitte' });
      expect(json.statusCode, json.body).toBe(200);
      expect(json.json()).toMatchObject({
        reply: 'Bitte wählen Sie: Termine oder Preise.',
        model: 'flow',
        tokens_used: 0,
        knowledge_used: false,
        actions: [{ type: 'block' }],
      });
      const conversationId = json.json<{ conversation_id: string }>().conversation_id;

      const streamed = await sendChat(
        get(),
        tenant,
        botId,
        { message: 'Menü nochmal', conversation_id: conversationId },
        { accept: 'text/event-stream' },
      );
      expect(streamed.statusCode).toBe(200);
      const events = parseSse(streamed.body);
      expect(events.map((e) => e.event)).toEqual(['delta', 'done']);
      expect(events[1]!.data).toMatchObject({
        reply: 'Bitte wählen Sie: Termine oder Preise.',
        model: 'flow',
      });
      // No model call for a decided turn; a turn the extension leaves alone goes to the model.
      expect(model.requests).toHaveLength(0);
      const asked = await sendChat(get(), tenant, botId, {
        message: 'Und sonst?',
        conversation_id: conversationId,
      });
      expect(asked.json()).toMatchObject({ reply: 'Aufgezeichnete Antwort.' });
      expect(model.requests).toHaveLength(1);
      expect(turns).toEqual(['Menü bitte', 'Menü nochmal', 'Und sonst?']);
      const stored = await get().db.query<{ role: string; content: string }>(
        'SELECT role, content FROM messages WHERE conversation_id = $1 ORDER BY seq',
        [conversationId],
      );
      expect(stored.map((m) => m.content)).toEqual([
        'Menü bitte',
        'Bitte wählen Sie: Termine oder Preise.',
        'Menü nochmal',
        'Bitte wählen Sie: Termine oder Preise.',
        'Und sonst?',
        'Aufgezeichnete Antwort.',
      ]);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(3));
    } finally {
      remove();
    }
  });

  it('frees an Idempotency-Key at once after a request that failed with 503 in a database outage', async () => {
    await freshBot();
    const db = get().db;
    const query = db.query.bind(db);
    let down = false;
    db.query = ((sql: string, params?: readonly unknown[]) => {
      if (down) {
        return Promise.reject(
          Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }),
        );
      }
      return query(sql, params);
    }) as typeof db.query;
    const key = `outage-${randomUUID()}`;
    try {
      // The database goes away while the model answers: storing fails, and so do the releases.
      model.answer = async () => {
        down = true;
        return { text: 'Zu spät.', model: 'recording-model', promptTokens: 1, completionTokens: 1 };
      };
      const failed = await sendChat(get(), tenant, botId, { message: 'Frage' }, { 'idempotency-key': key });
      expect(failed.statusCode).toBe(503);
      expect(failed.json()).toEqual({ error: 'Dienst vorübergehend nicht verfügbar' });
      expect(pendingReleases()).toBeGreaterThan(0);

      // Back again: the retry with the same key is answered at once, not 409 "wird noch verarbeitet".
      down = false;
      model.answer = async () => ({
        text: 'Jetzt.',
        model: 'recording-model',
        promptTokens: 1,
        completionTokens: 1,
      });
      const retried = await sendChat(get(), tenant, botId, { message: 'Frage' }, { 'idempotency-key': key });
      expect(retried.statusCode, retried.body).toBe(200);
      expect(retried.json()).toMatchObject({ reply: 'Jetzt.' });
      expect(pendingReleases()).toBe(0);
      expect(await ledgerOf(db, tenant.id)).toEqual(settled(1));
    } finally {
      down = false;
      db.query = query;
    }
  });

  it('still answers 409 for a key whose first request is really in flight', async () => {
    await freshBot();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    model.answer = async () => {
      await held;
      return { text: 'Erste.', model: 'recording-model', promptTokens: 1, completionTokens: 1 };
    };
    const key = `busy-${randomUUID()}`;
    const first = sendChat(get(), tenant, botId, { message: 'Eins' }, { 'idempotency-key': key });
    await eventually(
      async () => model.requests.length,
      (n) => n > 0,
    );
    const second = await sendChat(get(), tenant, botId, { message: 'Eins' }, { 'idempotency-key': key });
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toBe('Anfrage mit diesem Idempotency-Key wird noch verarbeitet');
    release();
    expect((await first).statusCode).toBe(200);
  });
});
