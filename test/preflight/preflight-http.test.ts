import { expect, it } from 'vitest';
import { setOnboardingStep } from '../../src/modules/knowledge/repository.js';
import { runPreflight, type PreflightResult } from '../../src/modules/preflight/service.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { SMS_CONNECTION, WHATSAPP_CONNECTION, addConnection } from '../messaging/setup.js';

describeApp('pre-flight check', (get) => {
  const preflightUrl = (botId: string) => `/api/bots/${botId}/preflight`;
  const injectUrl = (botId: string) => `/api/bots/${botId}/preflight/inject`;

  async function post<T>(tenant: TenantFixture, url: string, payload: object): Promise<T> {
    const res = await get().app.inject({ method: 'POST', url, headers: tenant.owner.headers, payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<T>();
  }

  const addStep = async (tenant: TenantFixture, botId: string, fields: object) =>
    (
      await post<{ step: { id: string } }>(tenant, `/api/bots/${botId}/flow-steps`, {
        step_type: 'message',
        ...fields,
      })
    ).step.id;

  const addBlock = async (tenant: TenantFixture, botId: string, fields: object) =>
    (
      await post<{ block: { id: string } }>(tenant, `/api/bots/${botId}/blocks`, {
        block_type: 'buttons',
        ...fields,
      })
    ).block.id;

  async function preflight(tenant: TenantFixture, botId: string) {
    const res = await get().app.inject({
      method: 'GET',
      url: preflightUrl(botId),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<PreflightResult>();
  }

  it('analyses the stored blocks and steps of a bot', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Du hilfst Kunden der Werkstatt.' });
    const welcome = await addStep(tenant, bot.id, { label: 'Begrüßung', icon: 'wave' });
    const choose = await addStep(tenant, bot.id, { label: 'Auswahl', step_type: 'block' });
    const done = await addStep(tenant, bot.id, { label: 'Abschluss' });
    const green = await addBlock(tenant, bot.id, {
      name: 'Terminart',
      items: [
        { id: 'beratung', title: 'Beratung' },
        { id: 'reparatur', title: 'Reparatur' },
      ],
      trigger_mode: 'flow',
      option_actions: { beratung: { action: 'goto_step', step_id: done } },
      step_config: { conditions: [{ field: 'anliegen', operator: 'exists' }] },
      exits: { default: 'end' },
    });
    await addBlock(tenant, bot.id, {
      name: 'Filiale',
      block_type: 'list',
      items: [{ id: 'muc', title: 'München' }],
      trigger_mode: 'auto',
      exits: { weiter: welcome },
    });
    await addBlock(tenant, bot.id, { name: 'Inaktiv', items: [{ id: 'x', title: 'X' }], is_active: false });
    await get().app.inject({
      method: 'PATCH',
      url: `/api/bots/${bot.id}/flow-steps/${choose}`,
      headers: tenant.owner.headers,
      payload: { block_id: green },
    });

    const result = await preflight(tenant, bot.id);
    expect(result.canActivate).toBe(true);
    expect(result.summary).toEqual({ total: 2, green: 1, orange: 1, red: 0 });
    expect(result.blocks).toEqual([
      expect.objectContaining({
        blockId: green,
        blockName: 'Terminart',
        blockType: 'buttons',
        itemCount: 2,
        status: 'green',
        routing: { ok: true, method: 'trigger_mode:flow' },
        conditions: { set: true, count: 1 },
        targets: { valid: true, issues: [] },
        recommendation: null,
      }),
      expect.objectContaining({
        blockName: 'Filiale',
        status: 'orange',
        conditions: { set: false, count: 0 },
        targets: expect.objectContaining({ valid: false }),
      }),
    ]);
    expect(result.flowAnalysis.steps).toEqual([
      { stepId: welcome, stepOrder: 1, stepType: 'message', label: 'Begrüßung', icon: 'wave', blockId: null },
      { stepId: choose, stepOrder: 2, stepType: 'block', label: 'Auswahl', icon: null, blockId: green },
      { stepId: done, stepOrder: 3, stepType: 'message', label: 'Abschluss', icon: null, blockId: null },
    ]);
    expect(result.flowAnalysis.edges).toEqual([
      { from: 1, to: 2, type: 'linear' },
      { from: 2, to: 'end', type: 'exit', via: 'default' },
      { from: 2, to: 3, type: 'condition', via: 'beratung' },
      // When the condition fails, the flow goes on linearly.
      { from: 2, to: 3, type: 'linear' },
    ]);
    expect(result.flowAnalysis.unreachableSteps).toEqual([]);
    expect(result.flowAnalysis.deadEnds).toEqual([]);
    expect(result.kbOnboarding).toBeNull();
    expect(result.promptInjection.blockCount).toBe(2);
    expect(result.promptInjection.section).toContain('[BUTTONS:Terminart]');
    expect(result.promptInjection.section).toContain('[LIST:Filiale]');
    expect(result.promptInjection.section).not.toContain('Inaktiv');
    expect(result.promptInjection.combinedPrompt.startsWith('Du hilfst Kunden der Werkstatt.\n\n')).toBe(
      true,
    );
  });

  it('blocks activation while a block has no routing, and says so', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    await addBlock(tenant, bot.id, { name: 'Sackgasse', items: [{ id: 'a', title: 'A' }] });
    const result = await preflight(tenant, bot.id);
    expect(result.canActivate).toBe(false);
    expect(result.summary).toEqual({ total: 1, green: 0, orange: 0, red: 1 });
    expect(result.blocks[0]).toMatchObject({
      status: 'red',
      routing: { ok: false, method: 'trigger_mode:none' },
    });
    expect(result.blocks[0]!.detail).toContain('Sackgasse');
    // The same answer for a caller in code, e.g. bot activation.
    expect(await runPreflight(get().db, tenant.id, bot.id)).toEqual(result);
  });

  it('reports a deleted step that a block still jumps to', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    await addStep(tenant, bot.id, { label: 'A' });
    const target = await addStep(tenant, bot.id, { label: 'B' });
    await addBlock(tenant, bot.id, {
      name: 'Sprung',
      items: [{ id: 'a', title: 'A' }],
      trigger_mode: 'auto',
      step_config: { conditions: [{ field: 'x', operator: 'exists' }] },
      option_actions: { a: { action: 'goto_step', step_id: target } },
    });
    expect((await preflight(tenant, bot.id)).blocks[0]!.status).toBe('green');
    await get().app.inject({
      method: 'DELETE',
      url: `/api/bots/${bot.id}/flow-steps/${target}`,
      headers: tenant.owner.headers,
    });
    const after = await preflight(tenant, bot.id);
    expect(after.blocks[0]).toMatchObject({
      status: 'orange',
      targets: { valid: false, issues: [expect.objectContaining({ kind: 'missing_goto_target', key: 'a' })] },
    });
    expect(after.canActivate).toBe(true);
  });

  it('includes an open knowledge-base onboarding checklist', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    await setOnboardingStep(get().db, tenant.id, 'entry_created', true);
    const result = await preflight(tenant, bot.id);
    expect(result.kbOnboarding).toMatchObject({
      type: expect.any(String),
      message: expect.stringMatching(
        /^Einrichtung der Wissensdatenbank unvollständig: \d von 3 Schritten offen$/,
      ),
    });
    expect(result.kbOnboarding!.details).toBeDefined();
  });

  it('stores the injected prompt in system_prompt_generated; an empty text clears it', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Basis' });
    const { promptInjection } = await preflight(tenant, bot.id);
    const res = await get().app.inject({
      method: 'POST',
      url: injectUrl(bot.id),
      headers: tenant.owner.headers,
      payload: { injectedPrompt: promptInjection.combinedPrompt },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      botId: bot.id,
      stored: true,
      length: promptInjection.combinedPrompt.length,
    });
    const stored = await get().db.query<{ system_prompt: string; system_prompt_generated: string | null }>(
      'SELECT system_prompt, system_prompt_generated FROM bots WHERE id = $1',
      [bot.id],
    );
    expect(stored[0]).toEqual({
      system_prompt: 'Basis',
      system_prompt_generated: promptInjection.combinedPrompt,
    });

    const cleared = await get().app.inject({
      method: 'POST',
      url: injectUrl(bot.id),
      headers: tenant.owner.headers,
      payload: { injectedPrompt: '  ' },
    });
    expect(cleared.json()).toMatchObject({ stored: false, length: 0 });
    const after = await get().db.query('SELECT system_prompt_generated FROM bots WHERE id = $1', [bot.id]);
    expect(after).toEqual([{ system_prompt_generated: null }]);
  });

  it('validates the inject body and changes nothing on bad input', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    await get().db.query("UPDATE bots SET system_prompt_generated = 'vorher' WHERE id = $1", [bot.id]);
    const cases: Array<[object, RegExp]> = [
      [{}, /injectedPrompt/],
      [{ injectedPrompt: 5 }, /injectedPrompt/],
      [{ injectedPrompt: null }, /injectedPrompt/],
      [{ injectedPrompt: 'x'.repeat(100_001) }, /injectedPrompt/],
      [{ injectedPrompt: 'x', more: 1 }, /more/],
    ];
    for (const [payload, message] of cases) {
      const res = await get().app.inject({
        method: 'POST',
        url: injectUrl(bot.id),
        headers: tenant.owner.headers,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload).slice(0, 50)).toBe(400);
      expect(res.json<{ message: string }>().message).toMatch(message);
    }
    const after = await get().db.query('SELECT system_prompt_generated FROM bots WHERE id = $1', [bot.id]);
    expect(after).toEqual([{ system_prompt_generated: 'vorher' }]);
  });

  it('warns, in German and English, about blocks that do not fit WhatsApp once the bot has a WhatsApp connection', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const many = await addBlock(tenant, bot.id, {
      name: 'Kursauswahl',
      items: ['Yoga', 'Pilates', 'Spinning', 'Zumba'].map((t) => ({ id: t.toLowerCase(), title: t })),
      trigger_mode: 'flow',
    });
    const longTitle = 'Beratung zur Finanzierung';
    await addBlock(tenant, bot.id, {
      name: 'Anliegen',
      items: [
        { id: 'a', title: longTitle },
        { id: 'b', title: 'Termin' },
      ],
      trigger_mode: 'flow',
    });
    const rows = Array.from({ length: 11 }, (_, i) => ({
      id: `r${i}`,
      title: i === 0 ? 'Ein Zeilentitel über vierundzwanzig' : `Zeile ${i}`,
      ...(i === 1 ? { description: 'x'.repeat(73) } : {}),
    }));
    const list = await addBlock(tenant, bot.id, {
      name: 'Filialen',
      block_type: 'list',
      items: rows,
      trigger_mode: 'flow',
    });
    await addBlock(tenant, bot.id, {
      name: 'Passt',
      items: [
        { id: 'ja', title: 'Ja' },
        { id: 'nein', title: 'Nein' },
      ],
      trigger_mode: 'flow',
    });
    // Without a connection, and with an SMS one only (always a numbered list): no warning.
    expect((await preflight(tenant, bot.id)).messagingWarnings).toEqual([]);
    await addConnection(get().app, tenant, bot.id, SMS_CONNECTION);
    expect((await preflight(tenant, bot.id)).messagingWarnings).toEqual([]);
    await addConnection(get().app, tenant, bot.id, WHATSAPP_CONNECTION);
    const warnings = (await preflight(tenant, bot.id)).messagingWarnings;
    expect(warnings.map((w) => [w.blockName, w.limit])).toEqual([
      ['Kursauswahl', 'buttons_count'],
      ['Anliegen', 'button_title'],
      ['Filialen', 'list_rows'],
      ['Filialen', 'row_title'],
      ['Filialen', 'row_description'],
    ]);
    const [count, title, listRows] = warnings;
    expect(count!.blockId).toBe(many);
    expect(count!.message.de).toBe(
      'Block „Kursauswahl“: 4 Buttons – WhatsApp zeigt höchstens 3 Antwort-Buttons. Auf WhatsApp wird er deshalb als nummerierte Textliste gesendet (nichts wird gekürzt).',
    );
    expect(count!.message.en).toContain('4 buttons – WhatsApp shows at most 3 reply buttons');
    expect(title!.items).toEqual([longTitle]);
    expect(title!.message.de).toContain('länger als 20 Zeichen: „Beratung zur Finanzierung“');
    expect(title!.message.en).toContain('longer than 20 characters');
    expect(listRows!.blockId).toBe(list);
    expect(listRows!.message.de).toContain('11 Einträge – eine WhatsApp-Liste hat höchstens 10 Zeilen');
    expect(warnings[3]!.message.de).toContain('länger als 24 Zeichen');
    expect(warnings[4]!.message.en).toContain('longer than 72 characters at "Zeile 1"');
    // Warnings do not stop activation.
    expect((await preflight(tenant, bot.id)).canActivate).toBe(true);
  });

  it('needs a session (401); viewers may check but not inject (403)', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const viewer = await tenant.user('viewer');
    expect((await get().app.inject({ method: 'GET', url: preflightUrl(bot.id) })).statusCode).toBe(401);
    expect(
      (await get().app.inject({ method: 'POST', url: injectUrl(bot.id), payload: { injectedPrompt: 'x' } }))
        .statusCode,
    ).toBe(401);
    expect(
      (await get().app.inject({ method: 'GET', url: preflightUrl(bot.id), headers: tenant.keyHeaders }))
        .statusCode,
    ).toBe(401);
    expect(
      (await get().app.inject({ method: 'GET', url: preflightUrl(bot.id), headers: viewer.headers }))
        .statusCode,
    ).toBe(200);
    const denied = await get().app.inject({
      method: 'POST',
      url: injectUrl(bot.id),
      headers: viewer.headers,
      payload: { injectedPrompt: 'x' },
    });
    expect(denied.statusCode).toBe(403);
    const after = await get().db.query('SELECT system_prompt_generated FROM bots WHERE id = $1', [bot.id]);
    expect(after).toEqual([{ system_prompt_generated: null }]);
  });

  it("answers 404 for another tenant's bot and for malformed ids", async () => {
    const owner = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const bot = await owner.bot();
    for (const id of [bot.id, 'not-a-uuid']) {
      const check = await get().app.inject({
        method: 'GET',
        url: preflightUrl(id),
        headers: other.owner.headers,
      });
      expect(check.statusCode).toBe(404);
      const inject = await get().app.inject({
        method: 'POST',
        url: injectUrl(id),
        headers: other.owner.headers,
        payload: { injectedPrompt: 'fremd' },
      });
      expect(inject.statusCode).toBe(404);
    }
    await expect(runPreflight(get().db, other.id, bot.id)).rejects.toMatchObject({ statusCode: 404 });
    const after = await get().db.query('SELECT system_prompt_generated FROM bots WHERE id = $1', [bot.id]);
    expect(after).toEqual([{ system_prompt_generated: null }]);
  });
});
