import { describe, expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { useFakeModelServer } from './fixtures.js';
import { chatUrl, parseSse, sendChat } from './helpers.js';

interface ChatBody {
  reply: string;
  conversation_id: string;
  model: string;
  tokens_used: number;
  blocks: Array<{ id: string; type: string; name: string; items: Array<{ id: string; title: string }> }>;
}

const ITEMS = [
  { id: 'yoga', title: 'Yoga', description: 'Montags 18 Uhr' },
  { id: 'pilates', title: 'Pilates' },
  { id: 'team', title: 'Mit dem Team sprechen' },
];

describeApp('chat with the flow engine', (get) => {
  async function addBlock(tenant: TenantFixture, botId: string, fields: object) {
    const res = await get().app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/blocks`,
      headers: tenant.owner.headers,
      payload: { name: 'Kurse', block_type: 'buttons', items: ITEMS, ...fields },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ block: { id: string } }>().block.id;
  }

  async function addStep(tenant: TenantFixture, botId: string, fields: object) {
    const res = await get().app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/flow-steps`,
      headers: tenant.owner.headers,
      payload: { step_type: 'message', label: 'Schritt', ...fields },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ step: { id: string } }>().step.id;
  }

  async function send(tenant: TenantFixture, botId: string, payload: object) {
    const res = await sendChat(get(), tenant, botId, payload);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<ChatBody>();
  }

  it('shows a keyword block with the offline model; the tag never reaches the reply', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const blockId = await addBlock(tenant, bot.id, {
      trigger_mode: 'keyword',
      step_config: { keywords: ['Kurs'] },
    });
    const body = await send(tenant, bot.id, { message: 'Welche Yogakurse habt ihr?' });
    expect(body.blocks).toEqual([
      {
        id: blockId,
        type: 'buttons',
        name: 'Kurse',
        items: [
          { id: 'yoga', title: 'Yoga', description: 'Montags 18 Uhr' },
          { id: 'pilates', title: 'Pilates', description: null },
          { id: 'team', title: 'Mit dem Team sprechen', description: null },
        ],
      },
    ]);
    expect(body.reply).toBe('Bitte wählen Sie:');
    expect(body.model).toBe('flow');
    expect(body.tokens_used).toBe(0);
    // A message without the keyword is answered by the model, without blocks.
    const plain = await send(tenant, bot.id, {
      message: 'Wie ist das Wetter?',
      conversation_id: body.conversation_id,
    });
    expect(plain.blocks).toEqual([]);
    expect(plain.model).not.toBe('flow');
  });

  describe('with a model server', () => {
    const server = useFakeModelServer(get, { timeoutMs: 500 });

    it('applies the chosen option without a model call: reply, goto_step, handover', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const blockId = await addBlock(tenant, bot.id, {
        trigger_mode: 'keyword',
        step_config: { keywords: ['Kurs'] },
      });
      const welcome = await addStep(tenant, bot.id, { content: 'Willkommen!' });
      const pilatesStep = await addStep(tenant, bot.id, { content: 'Pilates ist dienstags um 19 Uhr.' });
      await get().app.inject({
        method: 'PATCH',
        url: `/api/bots/${bot.id}/blocks/${blockId}`,
        headers: tenant.owner.headers,
        payload: {
          option_actions: {
            yoga: { action: 'reply', text: 'Yoga ist montags um 18 Uhr.' },
            pilates: { action: 'goto_step', step_id: pilatesStep },
            team: { action: 'handover' },
          },
        },
      });
      expect(welcome).toBeTruthy();

      // The flow starts with the first step; the keyword shows the block.
      const first = await send(tenant, bot.id, { message: 'Hallo' });
      expect(first.reply).toBe('Willkommen!\n\nPilates ist dienstags um 19 Uhr.');
      const shown = await send(tenant, bot.id, { message: 'Kurse?', conversation_id: first.conversation_id });
      expect(shown.blocks.map((b) => b.id)).toEqual([blockId]);

      const conversation = shown.conversation_id;
      const yoga = await send(tenant, bot.id, {
        message: 'Yoga',
        conversation_id: conversation,
        choice: { block_id: blockId, item_id: 'yoga' },
      });
      expect(yoga).toMatchObject({ reply: 'Yoga ist montags um 18 Uhr.', blocks: [], model: 'flow' });

      await send(tenant, bot.id, { message: 'Noch ein Kurs', conversation_id: conversation });
      const pilates = await send(tenant, bot.id, { message: '2', conversation_id: conversation });
      expect(pilates.reply).toBe('Pilates ist dienstags um 19 Uhr.');

      await send(tenant, bot.id, { message: 'Kurs', conversation_id: conversation });
      const team = await send(tenant, bot.id, {
        message: 'mit dem team sprechen',
        conversation_id: conversation,
      });
      expect(team.reply).toContain('Mitarbeiter');
      expect(server.requests).toHaveLength(0);

      // Handed over: the bot stays silent in this conversation.
      const after = await sendChat(get(), tenant, bot.id, {
        message: 'Hallo?',
        conversation_id: conversation,
      });
      expect(after.statusCode).toBe(409);
      const [row] = await get().db.query<{ status: string }>(
        'SELECT status FROM conversations WHERE id = $1',
        [conversation],
      );
      expect(row?.status).toBe('handed_over');
      // The exchanges are stored like any other.
      const messages = await get().db.query<{ role: string; content: string }>(
        'SELECT role, content FROM messages WHERE conversation_id = $1 ORDER BY created_at, id',
        [conversation],
      );
      expect(messages.map((m) => m.content)).toContain('Yoga ist montags um 18 Uhr.');
    });

    it('collects an input, follows the default exit under its condition, and ends', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot({ formal_address: false });
      await addStep(tenant, bot.id, {
        step_type: 'input',
        label: 'Name',
        content: 'Wie heißt du?',
        field_name: 'name',
      });
      const blockStep = await addStep(tenant, bot.id, {
        step_type: 'block',
        label: 'Kurs',
        content: 'Welcher Kurs?',
      });
      const linear = await addStep(tenant, bot.id, { content: 'Pilates ist ausgebucht.' });
      const exitStep = await addStep(tenant, bot.id, { content: 'Bis Montag!' });
      const blockId = await addBlock(tenant, bot.id, {
        trigger_mode: 'flow',
        step_config: { conditions: [{ field: 'Kurse', operator: 'equals', value: 'yoga' }] },
        exits: { default: exitStep },
      });
      await get().app.inject({
        method: 'PATCH',
        url: `/api/bots/${bot.id}/flow-steps/${blockStep}`,
        headers: tenant.owner.headers,
        payload: { block_id: blockId },
      });
      expect(linear).toBeTruthy();

      const asked = await send(tenant, bot.id, { message: 'Hallo' });
      expect(asked.reply).toBe('Wie heißt du?');
      const id = asked.conversation_id;
      const block = await send(tenant, bot.id, { message: 'Ada', conversation_id: id });
      expect(block.reply).toBe('Welcher Kurs?');
      expect(block.blocks[0]?.id).toBe(blockId);
      const yoga = await send(tenant, bot.id, { message: 'Yoga', conversation_id: id });
      expect(yoga.reply).toBe('Bis Montag!');
      expect(server.requests).toHaveLength(0);

      const [state] = await get().db.query<{ answers: Record<string, string>; ended: boolean }>(
        'SELECT answers, ended FROM conversation_flow_states WHERE conversation_id = $1',
        [id],
      );
      expect(state).toEqual({ answers: { name: 'Ada', Kurse: 'yoga' }, ended: true });

      // The flow has ended: the model answers again.
      server.queue = [{ kind: 'reply', text: 'Gern geschehen.' }];
      const later = await send(tenant, bot.id, { message: 'Danke', conversation_id: id });
      expect(later.reply).toBe('Gern geschehen.');
      expect(server.requests).toHaveLength(1);
    });

    it('turns the model’s block tag into block data, in JSON and in the stream', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const blockId = await addBlock(tenant, bot.id, { trigger_mode: 'auto' });
      server.queue = [{ kind: 'reply', text: 'Gern, wählen Sie einen Kurs: [BUTTONS:Kurse]' }];
      const body = await send(tenant, bot.id, { message: 'Was bietet ihr an?' });
      expect(body.reply).toBe('Gern, wählen Sie einen Kurs:');
      expect(body.blocks.map((b) => b.id)).toEqual([blockId]);

      server.queue = [{ kind: 'reply', text: '[LIST:Kurse] Bitte auswählen.' }];
      const res = await get().app.inject({
        method: 'POST',
        url: chatUrl(bot.id),
        headers: { ...tenant.keyHeaders, 'content-type': 'application/json', accept: 'text/event-stream' },
        payload: { message: 'Und sonst?' },
      });
      const done = parseSse(res.body).find((e) => e.event === 'done')?.data as ChatBody;
      expect(done.reply).toBe('Bitte auswählen.');
      expect(done.blocks.map((b) => b.id)).toEqual([blockId]);

      // The user's choice by number; no action and no exit: the model answers it.
      server.queue = [{ kind: 'reply', text: 'Pilates ist eine gute Wahl.' }];
      const chosen = await send(tenant, bot.id, { message: '2', conversation_id: done.conversation_id });
      expect(chosen.reply).toBe('Pilates ist eine gute Wahl.');
    });

    it('refuses a malformed choice and ignores a block of another tenant', async () => {
      const tenant = await buildTenant(get().ctx);
      const other = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const otherBot = await other.bot();
      const foreign = await addBlock(other, otherBot.id, {
        trigger_mode: 'auto',
        option_actions: { yoga: { action: 'reply', text: 'Geheimer Text des anderen Mandanten' } },
      });
      for (const choice of [
        { block_id: 'x', item_id: 'yoga' },
        'yoga',
        { block_id: foreign },
        { block_id: foreign, item_id: 'a b' },
      ]) {
        const res = await sendChat(get(), tenant, bot.id, { message: 'Yoga', choice });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'Ungültige Auswahl' });
      }
      server.queue = [{ kind: 'reply', text: 'Antwort des Modells.' }];
      const body = await send(tenant, bot.id, {
        message: 'Yoga',
        choice: { block_id: foreign, item_id: 'yoga' },
      });
      expect(body.reply).toBe('Antwort des Modells.');
      expect(body.blocks).toEqual([]);
      // Without a key: 401 before anything else.
      const anonymous = await get().app.inject({
        method: 'POST',
        url: chatUrl(bot.id),
        headers: { 'content-type': 'application/json' },
        payload: { message: 'Yoga', choice: { block_id: foreign, item_id: 'yoga' } },
      });
      expect(anonymous.statusCode).toBe(401);
    });
  });
});
