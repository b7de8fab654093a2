import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

interface Block {
  id: string;
  name: string;
  items: Array<{ id: string; title: string }>;
  trigger_mode: string | null;
  option_actions: Record<string, unknown>;
  exits: Record<string, string>;
  step_config: Record<string, unknown>;
  is_active: boolean;
  created_by: string | null;
}

const ITEMS = [
  { id: 'beratung', title: 'Beratung' },
  { id: 'reparatur', title: 'Reparatur', description: 'Vor Ort' },
];

describeApp('interactive blocks', (get) => {
  const blocksUrl = (botId: string, rest = '') => `/api/bots/${botId}/blocks${rest}`;

  async function addStep(tenant: TenantFixture, botId: string, label = 'Schritt') {
    const res = await get().app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/flow-steps`,
      headers: tenant.owner.headers,
      payload: { step_type: 'message', label },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ step: { id: string } }>().step.id;
  }

  async function countBlocks(botId: string) {
    const rows = await get().db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM interactive_blocks WHERE bot_id = $1',
      [botId],
    );
    return rows[0]!.n;
  }

  it('creates, reads, lists, changes and deletes a block', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const step = await addStep(tenant, bot.id);
    const created = await get().app.inject({
      method: 'POST',
      url: blocksUrl(bot.id),
      headers: tenant.owner.headers,
      payload: {
        name: 'Terminart',
        block_type: 'buttons',
        items: ITEMS,
        trigger_mode: 'auto',
        option_actions: {
          beratung: { action: 'goto_step', step_id: step },
          reparatur: { action: 'handover' },
        },
        step_config: { conditions: [{ field: 'anliegen', operator: 'exists' }], keywords: ['termin'] },
        exits: { default: 'end' },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const block = created.json<{ success: boolean; block: Block }>().block;
    expect(block).toMatchObject({
      name: 'Terminart',
      items: ITEMS,
      is_active: true,
      trigger_mode: 'auto',
      option_actions: { beratung: { action: 'goto_step', step_id: step } },
      exits: { default: 'end' },
      created_by: tenant.owner.id,
    });

    const one = await get().app.inject({
      method: 'GET',
      url: blocksUrl(bot.id, `/${block.id}`),
      headers: tenant.owner.headers,
    });
    expect(one.statusCode).toBe(200);
    expect(one.json<{ block: Block }>().block).toEqual(block);

    const listed = await get().app.inject({
      method: 'GET',
      url: blocksUrl(bot.id),
      headers: tenant.owner.headers,
    });
    expect(listed.json<{ blocks: Block[] }>().blocks.map((b) => b.id)).toEqual([block.id]);

    const changed = await get().app.inject({
      method: 'PATCH',
      url: blocksUrl(bot.id, `/${block.id}`),
      headers: tenant.owner.headers,
      payload: { trigger_mode: null, is_active: false },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json<{ block: Block }>().block).toMatchObject({
      trigger_mode: null,
      is_active: false,
      name: 'Terminart',
      items: ITEMS,
    });

    const deleted = await get().app.inject({
      method: 'DELETE',
      url: blocksUrl(bot.id, `/${block.id}`),
      headers: tenant.owner.headers,
    });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ success: true, deleted_id: block.id });
    expect(await countBlocks(bot.id)).toBe(0);
    const again = await get().app.inject({
      method: 'DELETE',
      url: blocksUrl(bot.id, `/${block.id}`),
      headers: tenant.owner.headers,
    });
    expect(again.statusCode).toBe(404);
  });

  it('fills defaults for a minimal block', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const res = await get().app.inject({
      method: 'POST',
      url: blocksUrl(bot.id),
      headers: tenant.owner.headers,
      payload: { name: 'Leer', block_type: 'list' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json<{ block: Block }>().block).toMatchObject({
      items: [],
      is_active: true,
      trigger_mode: null,
      option_actions: {},
      step_config: {},
      exits: {},
    });
  });

  it('refuses a goto or exit to a step of another bot, and stores nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const otherBot = await tenant.bot();
    const foreignStep = await addStep(tenant, otherBot.id);
    const ownStep = await addStep(tenant, bot.id);
    const cases: Array<[object, RegExp]> = [
      [
        { option_actions: { beratung: { action: 'goto_step', step_id: foreignStep } } },
        /option_actions\.beratung\.step_id/,
      ],
      [{ exits: { default: foreignStep } }, /exits\.default/],
      [{ exits: { default: ownStep, weiter: '00000000-0000-4000-8000-000000000000' } }, /exits\.weiter/],
    ];
    for (const [fields, message] of cases) {
      const res = await get().app.inject({
        method: 'POST',
        url: blocksUrl(bot.id),
        headers: tenant.owner.headers,
        payload: { name: 'Auswahl', block_type: 'buttons', items: ITEMS, trigger_mode: 'auto', ...fields },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ message: string }>().message).toMatch(message);
    }
    expect(await countBlocks(bot.id)).toBe(0);

    // Changing a stored block to point elsewhere is refused just the same.
    const ok = await get().app.inject({
      method: 'POST',
      url: blocksUrl(bot.id),
      headers: tenant.owner.headers,
      payload: { name: 'Auswahl', block_type: 'buttons', items: ITEMS, exits: { default: ownStep } },
    });
    expect(ok.statusCode).toBe(201);
    const id = ok.json<{ block: Block }>().block.id;
    const patched = await get().app.inject({
      method: 'PATCH',
      url: blocksUrl(bot.id, `/${id}`),
      headers: tenant.owner.headers,
      payload: { exits: { default: foreignStep } },
    });
    expect(patched.statusCode).toBe(400);
    const stored = await get().db.query<{ exits: object }>(
      'SELECT exits FROM interactive_blocks WHERE id = $1',
      [id],
    );
    expect(stored[0]!.exits).toEqual({ default: ownStep });
  });

  it('validates items, actions and fields', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const base = { name: 'Auswahl', block_type: 'buttons', items: ITEMS };
    const cases: Array<[object, RegExp]> = [
      [{ ...base, items: [ITEMS[0], ITEMS[0]] }, /twice/],
      [{ ...base, option_actions: { gibtsnicht: { action: 'handover' } } }, /option_actions\.gibtsnicht/],
      [{ ...base, option_actions: { beratung: { action: 'goto_step' } } }, /option_actions/],
      [{ ...base, option_actions: { beratung: { action: 'fly' } } }, /option_actions/],
      [{ ...base, trigger_mode: 'sometimes' }, /trigger_mode/],
      [{ ...base, block_type: 'carousel' }, /block_type/],
      [{ ...base, name: 'Mit [Klammer]' }, /name/],
      [{ ...base, name: '' }, /name/],
      [{ ...base, exits: { default: 'nirgendwo' } }, /exits/],
      [{ ...base, exits: { 'mit leerzeichen': 'end' } }, /exits/],
      [{ ...base, step_config: { conditions: [{ field: 'x', operator: 'like' }] } }, /step_config/],
      [{ ...base, step_config: { other: 1 } }, /step_config|other/],
      [{ ...base, items: [{ id: 'a', title: 'A', colour: 'red' }] }, /items|colour/],
      [{ ...base, is_active: 'yes' }, /is_active/],
      [{ ...base, surprise: true }, /surprise/],
      [{ block_type: 'buttons' }, /name/],
    ];
    for (const [payload, message] of cases) {
      const res = await get().app.inject({
        method: 'POST',
        url: blocksUrl(bot.id),
        headers: tenant.owner.headers,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'validation_error' });
      expect(res.json<{ message: string }>().message, JSON.stringify(payload)).toMatch(message);
    }
    expect(await countBlocks(bot.id)).toBe(0);
    const empty = await get().app.inject({
      method: 'PATCH',
      url: blocksUrl(bot.id, '/00000000-0000-4000-8000-000000000000'),
      headers: tenant.owner.headers,
      payload: {},
    });
    expect(empty.statusCode).toBe(400);
  });

  it('keeps block names unique per bot, ignoring case (409)', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const other = await tenant.bot();
    const create = (botId: string, name: string) =>
      get().app.inject({
        method: 'POST',
        url: blocksUrl(botId),
        headers: tenant.owner.headers,
        payload: { name, block_type: 'buttons' },
      });
    expect((await create(bot.id, 'Termin')).statusCode).toBe(201);
    const dup = await create(bot.id, 'TERMIN');
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ error: 'conflict' });
    expect((await create(other.id, 'Termin')).statusCode).toBe(201);
    const second = await create(bot.id, 'Filiale');
    const renamed = await get().app.inject({
      method: 'PATCH',
      url: blocksUrl(bot.id, `/${second.json<{ block: Block }>().block.id}`),
      headers: tenant.owner.headers,
      payload: { name: 'termin' },
    });
    expect(renamed.statusCode).toBe(409);
  });

  it('needs a session (401) and bot:edit to write (403); a viewer may read', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const created = await get().app.inject({
      method: 'POST',
      url: blocksUrl(bot.id),
      headers: tenant.owner.headers,
      payload: { name: 'Termin', block_type: 'buttons' },
    });
    const id = created.json<{ block: Block }>().block.id;
    const viewer = await tenant.user('viewer');
    const writes = [
      { method: 'POST' as const, url: blocksUrl(bot.id), payload: { name: 'Neu', block_type: 'buttons' } },
      { method: 'PATCH' as const, url: blocksUrl(bot.id, `/${id}`), payload: { name: 'Neu' } },
      { method: 'DELETE' as const, url: blocksUrl(bot.id, `/${id}`) },
    ];
    const reads = [
      { method: 'GET' as const, url: blocksUrl(bot.id) },
      { method: 'GET' as const, url: blocksUrl(bot.id, `/${id}`) },
    ];
    for (const request of [...writes, ...reads]) {
      expect((await get().app.inject(request)).statusCode, `${request.method} ${request.url}`).toBe(401);
    }
    for (const request of writes) {
      const res = await get().app.inject({ ...request, headers: viewer.headers });
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(403);
    }
    for (const request of reads) {
      expect((await get().app.inject({ ...request, headers: viewer.headers })).statusCode).toBe(200);
    }
    expect(await countBlocks(bot.id)).toBe(1);
  });

  it("answers 404 for another tenant's bot or block and for malformed ids", async () => {
    const owner = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const bot = await owner.bot();
    const otherBot = await other.bot();
    const created = await get().app.inject({
      method: 'POST',
      url: blocksUrl(bot.id),
      headers: owner.owner.headers,
      payload: { name: 'Termin', block_type: 'buttons' },
    });
    const id = created.json<{ block: Block }>().block.id;
    const requests = [
      { method: 'GET' as const, url: blocksUrl(bot.id) },
      { method: 'GET' as const, url: blocksUrl(bot.id, `/${id}`) },
      { method: 'POST' as const, url: blocksUrl(bot.id), payload: { name: 'X', block_type: 'buttons' } },
      { method: 'PATCH' as const, url: blocksUrl(bot.id, `/${id}`), payload: { name: 'X' } },
      { method: 'DELETE' as const, url: blocksUrl(bot.id, `/${id}`) },
      { method: 'GET' as const, url: blocksUrl(otherBot.id, `/${id}`) },
      { method: 'PATCH' as const, url: blocksUrl(otherBot.id, `/${id}`), payload: { name: 'X' } },
      { method: 'DELETE' as const, url: blocksUrl(otherBot.id, `/${id}`) },
      { method: 'GET' as const, url: blocksUrl('nope') },
      { method: 'GET' as const, url: blocksUrl(otherBot.id, '/nope') },
      { method: 'PATCH' as const, url: blocksUrl(otherBot.id, '/nope'), payload: { name: 'X' } },
      { method: 'DELETE' as const, url: blocksUrl(otherBot.id, '/nope') },
    ];
    for (const request of requests) {
      const res = await get().app.inject({ ...request, headers: other.owner.headers });
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(404);
    }
    const stored = await get().db.query<{ name: string }>(
      'SELECT name FROM interactive_blocks WHERE bot_id = $1',
      [bot.id],
    );
    expect(stored).toEqual([{ name: 'Termin' }]);
  });
});
