import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

interface Step {
  content?: string | null;
  field_name?: string | null;
  id: string;
  step_order: number;
  step_type: string;
  label: string;
  icon: string | null;
  block_id: string | null;
}

describeApp('flow steps', (get) => {
  const stepsUrl = (botId: string, rest = '') => `/api/bots/${botId}/flow-steps${rest}`;

  async function addStep(tenant: TenantFixture, botId: string, fields: object) {
    const res = await get().app.inject({
      method: 'POST',
      url: stepsUrl(botId),
      headers: tenant.owner.headers,
      payload: { step_type: 'message', ...fields },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ step: Step }>().step;
  }

  async function labels(tenant: TenantFixture, botId: string) {
    const res = await get().app.inject({
      method: 'GET',
      url: stepsUrl(botId),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode).toBe(200);
    return res.json<{ steps: Step[] }>().steps.map((s) => `${s.step_order}:${s.label}`);
  }

  async function addBlock(tenant: TenantFixture, botId: string, fields: object) {
    const res = await get().app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/blocks`,
      headers: tenant.owner.headers,
      payload: { block_type: 'buttons', ...fields },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ block: { id: string } }>().block.id;
  }

  it('appends steps, inserts at a position and keeps the order 1…n', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const first = await addStep(tenant, bot.id, { label: 'Begrüßung', icon: 'wave' });
    expect(first).toMatchObject({
      step_order: 1,
      step_type: 'message',
      label: 'Begrüßung',
      icon: 'wave',
      block_id: null,
    });
    await addStep(tenant, bot.id, { label: 'Ende' });
    await addStep(tenant, bot.id, { label: 'Frage', step_type: 'input', step_order: 2 });
    await addStep(tenant, bot.id, { label: 'Weit hinten', step_order: 99 });
    expect(await labels(tenant, bot.id)).toEqual(['1:Begrüßung', '2:Frage', '3:Ende', '4:Weit hinten']);

    const one = await get().app.inject({
      method: 'GET',
      url: stepsUrl(bot.id, `/${first.id}`),
      headers: tenant.owner.headers,
    });
    expect(one.json<{ step: Step }>().step).toMatchObject({ id: first.id, label: 'Begrüßung' });
  });

  it('moves a step with PATCH and renumbers the others', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const a = await addStep(tenant, bot.id, { label: 'A' });
    await addStep(tenant, bot.id, { label: 'B' });
    const c = await addStep(tenant, bot.id, { label: 'C' });
    const moved = await get().app.inject({
      method: 'PATCH',
      url: stepsUrl(bot.id, `/${a.id}`),
      headers: tenant.owner.headers,
      payload: { step_order: 3, label: 'A2' },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json<{ step: Step }>().step).toMatchObject({ step_order: 3, label: 'A2' });
    expect(await labels(tenant, bot.id)).toEqual(['1:B', '2:C', '3:A2']);
    await get().app.inject({
      method: 'PATCH',
      url: stepsUrl(bot.id, `/${c.id}`),
      headers: tenant.owner.headers,
      payload: { step_order: 1 },
    });
    expect(await labels(tenant, bot.id)).toEqual(['1:C', '2:B', '3:A2']);
  });

  it('reorders all steps at once and refuses an incomplete list', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const a = await addStep(tenant, bot.id, { label: 'A' });
    const b = await addStep(tenant, bot.id, { label: 'B' });
    const c = await addStep(tenant, bot.id, { label: 'C' });
    const res = await get().app.inject({
      method: 'PUT',
      url: stepsUrl(bot.id, '/order'),
      headers: tenant.owner.headers,
      payload: { step_ids: [c.id, a.id, b.id] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ steps: Step[] }>().steps.map((s) => s.label)).toEqual(['C', 'A', 'B']);
    for (const ids of [
      [a.id, b.id],
      [a.id, a.id, b.id],
      [a.id, b.id, c.id, '00000000-0000-4000-8000-000000000000'],
    ]) {
      const bad = await get().app.inject({
        method: 'PUT',
        url: stepsUrl(bot.id, '/order'),
        headers: tenant.owner.headers,
        payload: { step_ids: ids },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ message: string }>().message).toMatch(/step_ids/);
    }
    expect(await labels(tenant, bot.id)).toEqual(['1:C', '2:A', '3:B']);
  });

  it('deletes a step, closes the gap and names blocks that still jump to it', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    await addStep(tenant, bot.id, { label: 'A' });
    const b = await addStep(tenant, bot.id, { label: 'B' });
    await addStep(tenant, bot.id, { label: 'C' });
    const blockId = await addBlock(tenant, bot.id, {
      name: 'Auswahl',
      items: [{ id: 'ja', title: 'Ja' }],
      option_actions: { ja: { action: 'goto_step', step_id: b.id } },
      exits: { default: b.id },
    });
    const res = await get().app.inject({
      method: 'DELETE',
      url: stepsUrl(bot.id, `/${b.id}`),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      deleted_id: b.id,
      dangling_references: [
        { block_id: blockId, block_name: 'Auswahl', key: 'default' },
        { block_id: blockId, block_name: 'Auswahl', key: 'ja' },
      ],
    });
    expect(await labels(tenant, bot.id)).toEqual(['1:A', '2:C']);
  });

  it('shows only blocks of its own bot; a deleted block leaves the step without one', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const otherBot = await tenant.bot();
    const own = await addBlock(tenant, bot.id, { name: 'Eigen' });
    const foreign = await addBlock(tenant, otherBot.id, { name: 'Fremd' });
    const refused = await get().app.inject({
      method: 'POST',
      url: stepsUrl(bot.id),
      headers: tenant.owner.headers,
      payload: { step_type: 'block', label: 'Auswahl', block_id: foreign },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json<{ message: string }>().message).toMatch(/block_id/);
    expect(await labels(tenant, bot.id)).toEqual([]);
    // The database refuses it as well, whatever the service does.
    await expect(
      get().db.query(
        `INSERT INTO flow_steps (tenant_id, bot_id, step_order, step_type, label, block_id)
         VALUES ($1, $2, 1, 'block', 'x', $3)`,
        [tenant.id, bot.id, foreign],
      ),
    ).rejects.toThrow();

    const step = await addStep(tenant, bot.id, { step_type: 'block', label: 'Auswahl', block_id: own });
    expect(step.block_id).toBe(own);
    const patched = await get().app.inject({
      method: 'PATCH',
      url: stepsUrl(bot.id, `/${step.id}`),
      headers: tenant.owner.headers,
      payload: { block_id: foreign },
    });
    expect(patched.statusCode).toBe(400);
    await get().app.inject({
      method: 'DELETE',
      url: `/api/bots/${bot.id}/blocks/${own}`,
      headers: tenant.owner.headers,
    });
    const after = await get().app.inject({
      method: 'GET',
      url: stepsUrl(bot.id, `/${step.id}`),
      headers: tenant.owner.headers,
    });
    expect(after.json<{ step: Step }>().step).toMatchObject({ label: 'Auswahl', block_id: null });
  });

  it('validates the body and changes nothing on bad input', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const step = await addStep(tenant, bot.id, { label: 'A' });
    const cases: Array<[object, RegExp]> = [
      [{ label: 'x' }, /step_type/],
      [{ step_type: 'message' }, /label/],
      [{ step_type: 'dance', label: 'x' }, /step_type/],
      [{ step_type: 'message', label: '' }, /label/],
      [{ step_type: 'message', label: 'x', step_order: 0 }, /step_order/],
      [{ step_type: 'message', label: 'x', step_order: '2' }, /step_order/],
      [{ step_type: 'message', label: 'x', block_id: 'nope' }, /block_id/],
      [{ step_type: 'message', label: 'x', colour: 'red' }, /colour/],
    ];
    for (const [payload, message] of cases) {
      const res = await get().app.inject({
        method: 'POST',
        url: stepsUrl(bot.id),
        headers: tenant.owner.headers,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json<{ message: string }>().message).toMatch(message);
    }
    const empty = await get().app.inject({
      method: 'PATCH',
      url: stepsUrl(bot.id, `/${step.id}`),
      headers: tenant.owner.headers,
      payload: {},
    });
    expect(empty.statusCode).toBe(400);
    expect(await labels(tenant, bot.id)).toEqual(['1:A']);
  });

  it('needs a session (401) and bot:edit to write (403); a viewer may read', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const step = await addStep(tenant, bot.id, { label: 'A' });
    const viewer = await tenant.user('viewer');
    const writes = [
      { method: 'POST' as const, url: stepsUrl(bot.id), payload: { step_type: 'message', label: 'B' } },
      { method: 'PATCH' as const, url: stepsUrl(bot.id, `/${step.id}`), payload: { label: 'B' } },
      { method: 'PUT' as const, url: stepsUrl(bot.id, '/order'), payload: { step_ids: [step.id] } },
      { method: 'DELETE' as const, url: stepsUrl(bot.id, `/${step.id}`) },
    ];
    const reads = [
      { method: 'GET' as const, url: stepsUrl(bot.id) },
      { method: 'GET' as const, url: stepsUrl(bot.id, `/${step.id}`) },
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
    expect(await labels(tenant, bot.id)).toEqual(['1:A']);
  });

  it("answers 404 for another tenant's bot or step and for malformed ids", async () => {
    const owner = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const bot = await owner.bot();
    const otherBot = await other.bot();
    const step = await addStep(owner, bot.id, { label: 'A' });
    const requests = [
      { method: 'GET' as const, url: stepsUrl(bot.id) },
      { method: 'GET' as const, url: stepsUrl(bot.id, `/${step.id}`) },
      { method: 'POST' as const, url: stepsUrl(bot.id), payload: { step_type: 'message', label: 'B' } },
      { method: 'PATCH' as const, url: stepsUrl(bot.id, `/${step.id}`), payload: { label: 'B' } },
      { method: 'PUT' as const, url: stepsUrl(bot.id, '/order'), payload: { step_ids: [step.id] } },
      { method: 'DELETE' as const, url: stepsUrl(bot.id, `/${step.id}`) },
      { method: 'GET' as const, url: stepsUrl(otherBot.id, `/${step.id}`) },
      { method: 'PATCH' as const, url: stepsUrl(otherBot.id, `/${step.id}`), payload: { label: 'B' } },
      { method: 'DELETE' as const, url: stepsUrl(otherBot.id, `/${step.id}`) },
      { method: 'GET' as const, url: stepsUrl('nope') },
      { method: 'DELETE' as const, url: stepsUrl(otherBot.id, '/nope') },
      { method: 'PATCH' as const, url: stepsUrl(otherBot.id, '/nope'), payload: { label: 'B' } },
    ];
    for (const request of requests) {
      const res = await get().app.inject({ ...request, headers: other.owner.headers });
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(404);
    }
    expect(await labels(owner, bot.id)).toEqual(['1:A']);
  });

  it('stores what a step says: text, question and answer field; bad values change nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const step = await addStep(tenant, bot.id, {
      step_type: 'input',
      label: 'Name',
      content: 'Wie heißen Sie?',
      field_name: 'kunde.name',
    });
    expect(step).toMatchObject({ content: 'Wie heißen Sie?', field_name: 'kunde.name' });
    const patched = await get().app.inject({
      method: 'PATCH',
      url: stepsUrl(bot.id, `/${step.id}`),
      headers: tenant.owner.headers,
      payload: { content: 'Ihr Name?' },
    });
    expect(patched.json<{ step: Step }>().step).toMatchObject({
      content: 'Ihr Name?',
      field_name: 'kunde.name',
    });
    for (const payload of [
      { field_name: 'mit leerzeichen' },
      { content: 'x'.repeat(2001) },
      { field_name: '' },
    ]) {
      const res = await get().app.inject({
        method: 'PATCH',
        url: stepsUrl(bot.id, `/${step.id}`),
        headers: tenant.owner.headers,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload).slice(0, 40)).toBe(400);
    }
    const viewer = await tenant.user('viewer');
    const denied = await get().app.inject({
      method: 'PATCH',
      url: stepsUrl(bot.id, `/${step.id}`),
      headers: viewer.headers,
      payload: { content: 'Von einem Betrachter' },
    });
    expect(denied.statusCode).toBe(403);
    const stored = await get().app.inject({
      method: 'GET',
      url: stepsUrl(bot.id, `/${step.id}`),
      headers: tenant.owner.headers,
    });
    expect(stored.json<{ step: Step }>().step).toMatchObject({
      content: 'Ihr Name?',
      field_name: 'kunde.name',
    });
  });
});
