import { beforeAll, expect, it } from 'vitest';
import { getKbOnboarding } from '../../src/modules/knowledge/onboarding.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture, type UserFixture } from '../helpers/factories.js';

const MISSING = '00000000-0000-4000-8000-000000000000';
const ENTRY = { title: 'Öffnungszeiten', content: 'Wir haben Montag bis Freitag von 9 bis 18 Uhr geöffnet.' };

describeApp('knowledge routes', (get) => {
  let tenant: TenantFixture;
  let viewer: UserFixture;
  let editor: UserFixture;
  let botId: string;

  beforeAll(async () => {
    tenant = await buildTenant(get().ctx);
    viewer = await tenant.user('viewer');
    editor = await tenant.user('editor');
    botId = (await tenant.bot()).id;
  });

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers?: object,
    payload?: unknown,
  ) =>
    get().app.inject({ method, url, headers: headers as Record<string, string>, payload: payload as object });
  const create = async (prefix: string, body: object = ENTRY, headers: object = tenant.owner.headers) => {
    const response = await call('POST', prefix, headers, body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string; [key: string]: unknown }>();
  };
  const countEntries = async (tenantId: string) =>
    (
      await get().db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM knowledge_entries WHERE tenant_id = $1',
        [tenantId],
      )
    )[0]!.n;

  for (const kind of ['bot', 'tenant'] as const) {
    const prefix = () => (kind === 'bot' ? `/api/bots/${botId}/knowledge` : '/api/knowledge');

    it(`[${kind}] creates, reads, lists, replaces and deletes an entry`, async () => {
      const entry = await create(
        prefix(),
        {
          ...ENTRY,
          source_url: 'https://example.test/zeiten',
          tags: ['zeiten', 'zeiten', ' info '],
        },
        editor.headers,
      );
      expect(entry).toMatchObject({
        bot_id: kind === 'bot' ? botId : null,
        scope: kind,
        title: 'Öffnungszeiten',
        source_url: 'https://example.test/zeiten',
        tags: ['zeiten', 'info'],
        language: 'de',
        chunk_count: 1,
        created_by: editor.id,
      });
      const read = await call('GET', `${prefix()}/${entry.id}`, viewer.headers);
      expect(read.statusCode).toBe(200);
      expect(read.json().content).toBe(ENTRY.content);

      const list = await call('GET', `${prefix()}?tag=zeiten`, viewer.headers);
      expect(list.statusCode).toBe(200);
      const listed = list.json<{
        data: { id: string; content_preview: string }[];
        next_cursor: string | null;
        total: number;
      }>();
      expect(listed.data.map((e) => e.id)).toContain(entry.id);
      expect(listed.data[0]).not.toHaveProperty('content');
      expect(listed.total).toBe(listed.data.length);
      expect(listed.next_cursor).toBeNull();

      const replaced = await call('PUT', `${prefix()}/${entry.id}`, editor.headers, {
        title: 'Opening hours',
        content: 'We are open from Monday to Friday, nine to six.',
      });
      expect(replaced.statusCode, replaced.body).toBe(200);
      expect(replaced.json()).toMatchObject({
        title: 'Opening hours',
        language: 'en',
        source_url: null,
        tags: [],
      });

      expect((await call('DELETE', `${prefix()}/${entry.id}`, editor.headers)).statusCode).toBe(204);
      expect((await call('GET', `${prefix()}/${entry.id}`, viewer.headers)).statusCode).toBe(404);
      expect((await call('DELETE', `${prefix()}/${entry.id}`, editor.headers)).statusCode).toBe(404);
      const chunks = await get().db.query('SELECT 1 FROM knowledge_chunks WHERE entry_id = $1', [entry.id]);
      expect(chunks).toHaveLength(0);
    });

    it(`[${kind}] refuses bad input with a clear error and writes nothing`, async () => {
      const before = await countEntries(tenant.id);
      const cases: [object, RegExp][] = [
        [{ title: 'x' }, /content/],
        [{ ...ENTRY, title: '   ' }, /title/],
        [{ ...ENTRY, content: ' \n ' }, /content/],
        [{ ...ENTRY, extra: 1 }, /extra/],
        [{ ...ENTRY, source_url: 'javascript:alert(1)' }, /source_url/],
        [{ ...ENTRY, language: 'es' }, /language/],
        [{ ...ENTRY, tags: 'zeiten' }, /tags/],
      ];
      for (const [body, field] of cases) {
        const response = await call('POST', prefix(), tenant.owner.headers, body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json().error).toBe('validation_error');
        expect(response.json().message).toMatch(field);
      }
      expect(await countEntries(tenant.id)).toBe(before);
    });

    it(`[${kind}] needs a session and the knowledge permissions`, async () => {
      const entry = await create(prefix());
      expect((await call('GET', prefix())).statusCode).toBe(401);
      expect((await call('POST', prefix(), {}, ENTRY)).statusCode).toBe(401);
      expect((await call('POST', prefix(), viewer.headers, ENTRY)).statusCode).toBe(403);
      expect((await call('PUT', `${prefix()}/${entry.id}`, viewer.headers, ENTRY)).statusCode).toBe(403);
      expect((await call('DELETE', `${prefix()}/${entry.id}`, viewer.headers)).statusCode).toBe(403);
      expect(
        (await call('POST', `${prefix()}/import`, viewer.headers, { entries: [ENTRY] })).statusCode,
      ).toBe(403);
      expect((await call('GET', `${prefix()}/${entry.id}`, viewer.headers)).statusCode).toBe(200);
    });

    it(`[${kind}] hides another tenant's entries (404) and answers malformed ids with 404`, async () => {
      const entry = await create(prefix());
      const stranger = await buildTenant(get().ctx);
      const strangerPrefix =
        kind === 'bot' ? `/api/bots/${(await stranger.bot()).id}/knowledge` : '/api/knowledge';
      for (const [method, payload] of [['GET'], ['PUT', ENTRY], ['DELETE']] as const) {
        const response = await call(method, `${strangerPrefix}/${entry.id}`, stranger.owner.headers, payload);
        expect(response.statusCode, method).toBe(404);
      }
      const theirs = await call('GET', strangerPrefix, stranger.owner.headers);
      expect(theirs.json().data.map((e: { id: string }) => e.id)).not.toContain(entry.id);
      expect((await call('GET', `${prefix()}/not-a-uuid`, tenant.owner.headers)).statusCode).toBe(404);
      expect((await call('GET', `${prefix()}/${MISSING}`, tenant.owner.headers)).statusCode).toBe(404);
    });

    it('pages through the list with next_cursor, counting every entry in total', async () => {
      const t = await buildTenant(get().ctx);
      const own = kind === 'bot' ? `/api/bots/${(await t.bot()).id}/knowledge` : '/api/knowledge';
      for (let i = 0; i < 5; i += 1) {
        const created = await call('POST', own, t.owner.headers, {
          title: `Eintrag ${i}`,
          content: `Inhalt ${i}`,
        });
        expect(created.statusCode).toBe(201);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await call('GET', `${own}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, t.owner.headers);
        expect(res.statusCode).toBe(200);
        const body = res.json<{ data: { id: string }[]; next_cursor: string | null; total: number }>();
        expect(body.total).toBe(5);
        seen.push(...body.data.map((e) => e.id));
        cursor = body.next_cursor;
        pages += 1;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(new Set(seen).size).toBe(5);
      const bad = await call('GET', `${own}?cursor=not-a-cursor`, t.owner.headers);
      expect(bad.statusCode).toBe(400);
    });
  }

  it("keeps bot entries and tenant entries apart, and another tenant's bot is 404", async () => {
    const botEntry = await create(`/api/bots/${botId}/knowledge`);
    const sharedEntry = await create('/api/knowledge');
    expect((await call('GET', `/api/knowledge/${botEntry.id}`, tenant.owner.headers)).statusCode).toBe(404);
    expect(
      (await call('GET', `/api/bots/${botId}/knowledge/${sharedEntry.id}`, tenant.owner.headers)).statusCode,
    ).toBe(404);
    const otherBot = await tenant.bot();
    expect(
      (await call('GET', `/api/bots/${otherBot.id}/knowledge/${botEntry.id}`, tenant.owner.headers))
        .statusCode,
    ).toBe(404);
    const stranger = await buildTenant(get().ctx);
    for (const [method, url] of [
      ['GET', `/api/bots/${botId}/knowledge`],
      ['POST', `/api/bots/${botId}/knowledge`],
      ['POST', `/api/bots/${botId}/knowledge/import`],
      ['GET', `/api/bots/${botId}/knowledge/search?q=Zeiten`],
      ['GET', `/api/bots/not-a-uuid/knowledge`],
    ] as const) {
      const response = await call(
        method,
        url,
        stranger.owner.headers,
        method === 'POST' ? { entries: [ENTRY], ...ENTRY } : undefined,
      );
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect([400, 404], url).toContain(response.statusCode);
    }
    expect(
      (await call('POST', `/api/bots/${botId}/knowledge`, stranger.owner.headers, ENTRY)).statusCode,
    ).toBe(404);
  });

  it('refuses content over the entry size limit', async () => {
    const max = get().ctx.config.knowledge.maxEntryBytes;
    const response = await call('POST', '/api/knowledge', tenant.owner.headers, {
      title: 'Groß',
      content: 'ä'.repeat(max / 2 + 1),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/at most 1048576 bytes/);
  });

  it('splits a long entry into overlapping chunks', async () => {
    const content = Array.from(
      { length: 40 },
      (_, i) => `Absatz ${i}: Hier steht ein längerer Text über das Angebot des Studios.`,
    ).join('\n\n');
    const entry = await create('/api/knowledge', { title: 'Lang', content });
    expect(entry.chunk_count).toBeGreaterThan(2);
  });

  it('imports JSON entries and Markdown files at once', async () => {
    const response = await call('POST', `/api/bots/${botId}/knowledge/import`, editor.headers, {
      entries: [{ title: 'Preise', content: 'Ein Kurs kostet 15 Euro.' }],
      files: [
        { filename: 'kurse.md', content: '# Unsere Kurse\n\nYoga und Pilates am Abend.' },
        {
          filename: 'docs/anfahrt.txt',
          content: 'Mit der Tram bis zur Haltestelle Markt.',
          tags: ['anfahrt'],
        },
      ],
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json<{ imported: number; entries: { title: string; tags: string[] }[] }>();
    expect(body.imported).toBe(3);
    expect(body.entries.map((e) => e.title)).toEqual(['Preise', 'Unsere Kurse', 'anfahrt']);
    expect(body.entries[2]!.tags).toEqual(['anfahrt']);
  });

  it('imports one raw Markdown or text file', async () => {
    const markdown = await get().app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/knowledge/import`,
      headers: { ...tenant.owner.headers, 'content-type': 'text/markdown; charset=utf-8' },
      payload: '## Sauna\n\nDie Sauna ist täglich bis 22 Uhr geöffnet.',
    });
    expect(markdown.statusCode, markdown.body).toBe(201);
    expect(markdown.json().entries[0].title).toBe('Sauna');
    const text = await get().app.inject({
      method: 'POST',
      url: `/api/knowledge/import?title=${encodeURIComponent('Hausordnung')}`,
      headers: { ...tenant.owner.headers, 'content-type': 'text/plain' },
      payload: 'Bitte Handtücher benutzen.',
    });
    expect(text.statusCode, text.body).toBe(201);
    expect(text.json().entries[0]).toMatchObject({ title: 'Hausordnung', scope: 'tenant' });
  });

  it('imports all entries or none', async () => {
    const before = await countEntries(tenant.id);
    const response = await call('POST', '/api/knowledge/import', tenant.owner.headers, {
      entries: [ENTRY, { title: 'Leer', content: '   ' }],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/import\[1\]\.content/);
    const empty = await call('POST', '/api/knowledge/import', tenant.owner.headers, {});
    expect(empty.statusCode).toBe(400);
    const tooMany = await call('POST', '/api/knowledge/import', tenant.owner.headers, {
      entries: Array.from({ length: 101 }, () => ENTRY),
    });
    expect(tooMany.statusCode).toBe(400);
    expect(await countEntries(tenant.id)).toBe(before);
  });

  it('hit test shows scores, the minimum score and what the chat would use', async () => {
    const t = await buildTenant(get().ctx);
    const bot = await t.bot({ knowledge_min_score: 0.7 });
    await create(`/api/bots/${bot.id}/knowledge`, ENTRY, t.owner.headers);
    await create(
      '/api/knowledge',
      { title: 'Preise', content: 'Ein Kurs kostet 15 Euro. Geöffnet ist die Kasse immer.' },
      t.owner.headers,
    );
    const response = await call(
      'GET',
      `/api/bots/${bot.id}/knowledge/search?q=${encodeURIComponent('Öffnungszeiten Kurs')}&limit=5`,
      viewer.headers,
    );
    expect(response.statusCode).toBe(404);
    const viewerOfT = await t.user('viewer');
    const ok = await call(
      'GET',
      `/api/bots/${bot.id}/knowledge/search?q=${encodeURIComponent('Wann ist geöffnet?')}&limit=5`,
      viewerOfT.headers,
    );
    expect(ok.statusCode, ok.body).toBe(200);
    const body = ok.json<{
      min_score: number;
      results: { title: string; score: number; scope: string; used_in_chat: boolean }[];
    }>();
    expect(body.min_score).toBeCloseTo(0.7);
    expect(body.results.length).toBe(2);
    for (const result of body.results) {
      // Used in the chat only at or above the minimum score (and when the decision keeps it).
      if (result.used_in_chat) expect(result.score).toBeGreaterThanOrEqual(0.7);
      expect(result.score).toBeGreaterThan(0);
      expect(result.score).toBeLessThanOrEqual(1);
    }
    expect(body.results.map((r) => r.scope).sort()).toEqual(['bot', 'tenant']);
    expect(
      (await call('GET', `/api/bots/${bot.id}/knowledge/search?q=%20`, viewerOfT.headers)).statusCode,
    ).toBe(400);
    expect((await call('GET', `/api/bots/${bot.id}/knowledge/search`, viewerOfT.headers)).statusCode).toBe(
      400,
    );
    expect((await call('GET', `/api/bots/${bot.id}/knowledge/search?q=x`)).statusCode).toBe(401);
  });

  it('hit test shows the answerability decision and the key terms the hits lack', async () => {
    const t = await buildTenant(get().ctx);
    const bot = await t.bot();
    await create(
      `/api/bots/${bot.id}/knowledge`,
      {
        title: 'Ersatzmesser',
        content: 'Das Ersatzmesser AS-206 passt für die Serie AS und kostet 24,90 €.',
      },
      t.owner.headers,
    );
    const test = async (q: string) => {
      const response = await call(
        'GET',
        `/api/bots/${bot.id}/knowledge/search?q=${encodeURIComponent(q)}`,
        t.owner.headers,
      );
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{
        results: { used_in_chat: boolean; score: number }[];
        decision: { answer: boolean; reason: string; key_terms: string[]; missing_terms: string[] };
      }>();
    };
    const answered = await test('Was kostet das Ersatzmesser AS-206?');
    expect(answered.decision).toEqual({
      answer: true,
      reason: 'answer',
      key_terms: ['as206'],
      missing_terms: [],
    });
    expect(answered.results[0]!.used_in_chat).toBe(true);
    // A hit above the threshold that lacks the asked part number is not used.
    const other = await test('Was kostet das Ersatzmesser AS-310?');
    expect(other.results[0]!.score).toBeGreaterThanOrEqual(0.4);
    expect(other.decision).toEqual({
      answer: false,
      reason: 'missing_key_terms',
      key_terms: ['as310'],
      missing_terms: ['as310'],
    });
    expect(other.results.every((r) => !r.used_in_chat)).toBe(true);
    const none = await test('Wie wird das Wetter morgen?');
    expect(none.decision).toMatchObject({ answer: false, reason: 'no_hits' });
    // Another tenant's bot: 404, as for every knowledge route.
    const other_ = await buildTenant(get().ctx);
    const foreign = await call('GET', `/api/bots/${bot.id}/knowledge/search?q=AS-206`, other_.owner.headers);
    expect(foreign.statusCode).toBe(404);
  });

  it('tracks the onboarding checklist and reports it for the pre-flight check', async () => {
    const t = await buildTenant(get().ctx);
    const start = await call('GET', '/api/knowledge/onboarding', t.owner.headers);
    expect(start.json()).toMatchObject({ started: false, complete: false });
    expect(await getKbOnboarding(get().db, t.id)).toBeNull();

    const bot = await t.bot();
    await create(`/api/bots/${bot.id}/knowledge`, ENTRY, t.owner.headers);
    const notice = await getKbOnboarding(get().db, t.id);
    expect(notice).toMatchObject({
      type: 'kb_onboarding_incomplete',
      details: { completed: ['entry_created'] },
    });
    expect(notice!.message).toMatch(/2 von 3 Schritten offen/);

    await call('GET', `/api/bots/${bot.id}/knowledge/search?q=Zeiten`, t.owner.headers);
    const viewerOfT = await t.user('viewer');
    expect(
      (
        await call('PUT', '/api/knowledge/onboarding/steps/strictness_reviewed', viewerOfT.headers, {
          done: true,
        })
      ).statusCode,
    ).toBe(403);
    expect(
      (await call('PUT', '/api/knowledge/onboarding/steps/strictness_reviewed', undefined, { done: true }))
        .statusCode,
    ).toBe(401);
    expect(
      (await call('PUT', '/api/knowledge/onboarding/steps/nope', t.owner.headers, { done: true })).statusCode,
    ).toBe(404);
    expect(
      (
        await call('PUT', '/api/knowledge/onboarding/steps/strictness_reviewed', t.owner.headers, {
          done: 'yes',
        })
      ).statusCode,
    ).toBe(400);
    const done = await call('PUT', '/api/knowledge/onboarding/steps/strictness_reviewed', t.owner.headers, {
      done: true,
    });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ started: true, complete: true });
    expect(await getKbOnboarding(get().db, t.id)).toBeNull();
    // Another tenant's checklist is untouched.
    expect((await call('GET', '/api/knowledge/onboarding', tenant.owner.headers)).json().complete).toBe(
      false,
    );

    const undone = await call('PUT', '/api/knowledge/onboarding/steps/search_tested', t.owner.headers, {
      done: false,
    });
    expect(undone.json().complete).toBe(false);
    expect((await getKbOnboarding(get().db, t.id))?.details).toMatchObject({
      pending: [{ key: 'search_tested' }],
    });
  });
});
