import { afterAll, beforeAll, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { memoryCoordination } from '../../src/coordination/index.js';
import { httpEmbeddings } from '../../src/modules/knowledge/embeddings.js';
import { searchKnowledge } from '../../src/modules/knowledge/search.js';
import { replaceEntry, searchForAnswer } from '../../src/modules/knowledge/service.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { startFakeEmbeddings, type FakeEmbeddingsServer } from './fake-embeddings.js';
import { addEntries, knowledgeDeps } from './helpers.js';

describeEachBackend('knowledge search', (get) => {
  let ctx: AppContext;
  let tenant: TenantFixture;
  let botId: string;
  let otherBotId: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    ctx = await createContext(testConfig(), { db: get().db, coordination: memoryCoordination() });
    tenant = await buildTenant(ctx);
    botId = (await tenant.bot()).id;
    otherBotId = (await tenant.bot()).id;
    const [hours, prices, courses, en, fr, it] = await addEntries(ctx, tenant.id, botId, [
      {
        title: 'Öffnungszeiten',
        content:
          'Unser Studio hat von Montag bis Freitag von 9 bis 18 Uhr geöffnet. Am Wochenende bleibt es geschlossen.',
      },
      {
        title: 'Preise',
        content: 'Eine Mitgliedschaft kostet 39 Euro im Monat. Ein einzelner Kurs kostet 15 Euro.',
      },
      {
        title: 'Kurse',
        content: 'Wir bieten Yoga, Pilates und Rückentraining an. Die Kurse finden abends statt.',
      },
      {
        title: 'Parking',
        content: 'Visitors can park their cars for free in the garage behind the building.',
      },
      {
        title: 'Livraison',
        content: 'Nous livrons les commandes en trois jours ouvrables partout en Suisse.',
      },
      {
        title: 'Spedizione',
        content: 'Le spedizioni vengono consegnate entro tre giorni lavorativi in tutta la Svizzera.',
      },
    ]);
    const [shared] = await addEntries(ctx, tenant.id, null, [
      {
        title: 'Impressum',
        content: 'Die Sauna ist für alle Mitglieder inklusive und täglich bis 22 Uhr offen.',
      },
    ]);
    const [foreignBot] = await addEntries(ctx, tenant.id, otherBotId, [
      { title: 'Geheimtipp', content: 'Der Whirlpool im Keller ist nur für diesen anderen Bot bekannt.' },
    ]);
    ids = {
      hours: hours!,
      prices: prices!,
      courses: courses!,
      en: en!,
      fr: fr!,
      it: it!,
      shared: shared!,
      foreignBot: foreignBot!,
    };
  });

  const search = (query: string, extra: { limit?: number; minScore?: number; bot?: string } = {}) =>
    searchKnowledge(get().db, tenant.id, { botId: extra.bot ?? botId, query, ...extra });

  it.each([
    ['German', 'Wann habt ihr geöffnet?', 'hours'],
    ['German', 'Was kostet ein Kurs?', 'prices'],
    ['English', 'Where can I park my car?', 'en'],
    ['French', 'Combien de jours pour la livraison des commandes?', 'fr'],
    ['Italian', 'Quanti giorni per la consegna delle spedizioni?', 'it'],
  ])('finds the %s entry for "%s" with a score in 0.4..1', async (_language, query, key) => {
    const hits = await search(query);
    expect(hits[0]?.entryId).toBe(ids[key!]);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(0.4);
    expect(hits[0]!.score).toBeLessThanOrEqual(1);
  });

  it('matches inflected forms through stemming', async () => {
    expect((await search('Kursen'))[0]?.entryId).toBe(ids.courses);
    expect((await search('parked cars'))[0]?.entryId).toBe(ids.en);
  });

  it.each([
    ['Öfnungszeiten', 'hours'],
    ['Preisse', 'prices'],
    ['Pilatess Yogga', 'courses'],
    ['spedizoni', 'it'],
  ])('tolerates the typo "%s"', async (query, key) => {
    const hits = await search(query);
    expect(hits[0]?.entryId).toBe(ids[key!]);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(0.4);
  });

  it('caches resolved words per vocabulary version and never uses them once it grows', async () => {
    const fresh = await buildTenant(ctx);
    const bot = (await fresh.bot()).id;
    const version = async () =>
      (
        await get().db.query<{ v: number }>(
          'SELECT knowledge_vocabulary_version AS v FROM tenants WHERE id = $1',
          [fresh.id],
        )
      )[0]!.v;
    const cached = async (query: string) =>
      searchKnowledge(get().db, fresh.id, { botId: bot, query, vocabularyVersion: await version() });
    await addEntries(ctx, fresh.id, bot, [{ title: 'Preise', content: 'Ein Kurs kostet 15 Euro.' }]);
    const before = await version();
    expect(before).toBeGreaterThan(0);
    // "Saunna" has no close spelling yet: resolved (and cached) without a correction.
    expect(await cached('Saunna')).toEqual([]);
    const [sauna] = await addEntries(ctx, fresh.id, bot, [
      { title: 'Sauna', content: 'Die Sauna ist täglich bis 22 Uhr offen.' },
    ]);
    expect(await version()).toBe(before + 1);
    expect((await cached('Saunna'))[0]?.entryId).toBe(sauna);
    // Words the vocabulary already holds leave the version as it is.
    await addEntries(ctx, fresh.id, bot, [{ title: 'Sauna', content: 'Die Sauna ist offen.' }]);
    expect(await version()).toBe(before + 1);
  });

  it('returns nothing for a question the knowledge base does not cover', async () => {
    expect(await search('Wie wird das Wetter in Paris?')).toEqual([]);
    expect(await search('   ')).toEqual([]);
    expect(await search('und oder aber')).toEqual([]);
  });

  it('cuts to the top 3 by default, sorted by score, one hit per entry', async () => {
    const all = await search('Kurs Preise Montag Yoga Sauna Mitgliedschaft', { limit: 10 });
    expect(all.length).toBeGreaterThan(3);
    const top = await search('Kurs Preise Montag Yoga Sauna Mitgliedschaft');
    expect(top).toHaveLength(3);
    expect(top.map((h) => h.entryId)).toEqual(all.slice(0, 3).map((h) => h.entryId));
    const scores = all.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(new Set(all.map((h) => h.entryId)).size).toBe(all.length);
  });

  it('drops hits below the minimum score (0.4 by default in the chat)', async () => {
    const all = await search('Kurs Preise Mitgliedschaft Sauna Yoga', { limit: 10 });
    expect(all.some((h) => h.score < 0.4)).toBe(true);
    const kept = await search('Kurs Preise Mitgliedschaft Sauna Yoga', {
      limit: 10,
      minScore: 0.4,
    });
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((h) => h.score >= 0.4)).toBe(true);
    expect(kept).toEqual(all.filter((h) => h.score >= 0.4));
  });

  it("includes tenant-wide entries but never another bot's entries", async () => {
    const sauna = await search('Sauna');
    expect(sauna[0]?.entryId).toBe(ids.shared);
    expect(sauna[0]?.botId).toBeNull();
    expect(await search('Whirlpool Keller')).toEqual([]);
    expect((await search('Whirlpool Keller', { bot: otherBotId }))[0]?.entryId).toBe(ids.foreignBot);
  });

  it("never returns another tenant's knowledge, even for the other tenant's bot id", async () => {
    const stranger = await buildTenant(ctx);
    const strangerBot = await stranger.bot();
    await addEntries(ctx, stranger.id, strangerBot.id, [
      { title: 'Öffnungszeiten', content: 'Fremde Öffnungszeiten: täglich geöffnet von 6 bis 23 Uhr.' },
    ]);
    await addEntries(ctx, stranger.id, null, [{ title: 'Sauna', content: 'Fremde Sauna, immer geöffnet.' }]);
    const mine = await search('Öffnungszeiten Sauna geöffnet', { limit: 10 });
    expect(mine.map((h) => h.entryId).sort()).toEqual([ids.hours, ids.shared].sort());
    const viaForeignBot = await searchKnowledge(get().db, tenant.id, {
      botId: strangerBot.id,
      query: 'Öffnungszeiten Sauna geöffnet',
      limit: 10,
    });
    expect(viaForeignBot.map((h) => h.entryId)).toEqual([ids.shared]);
    const theirs = await searchKnowledge(get().db, stranger.id, {
      botId: strangerBot.id,
      query: 'Mitgliedschaft',
    });
    expect(theirs).toEqual([]);
  });

  it('re-indexes an edited entry: old words stop matching, new ones match', async () => {
    const [id] = await addEntries(ctx, tenant.id, botId, [
      { title: 'Getränke', content: 'Wasser gibt es an der Theke.' },
    ]);
    expect((await search('Wasser Theke'))[0]?.entryId).toBe(id);
    await replaceEntry(knowledgeDeps(ctx), tenant.id, { botId }, id!, {
      title: 'Getränke',
      content: 'Proteinshakes gibt es am Automaten.',
    });
    expect((await search('Wasser Theke')).map((h) => h.entryId)).not.toContain(id);
    expect((await search('Proteinshakes'))[0]?.entryId).toBe(id);
    const chunks = await get().db.query('SELECT 1 FROM knowledge_chunks WHERE entry_id = $1', [id]);
    expect(chunks).toHaveLength(1);
  });

  it('finds a later chunk of a long entry and returns that chunk', async () => {
    const filler = 'Allgemeine Hinweise zum Studio und zur Hausordnung. '.repeat(60);
    const [id] = await addEntries(ctx, tenant.id, botId, [
      { title: 'Hausordnung', content: `${filler}\n\nHandtücher sind im Schrank neben der Umkleide.` },
    ]);
    const hits = await search('Handtücher');
    expect(hits[0]?.entryId).toBe(id);
    expect(hits[0]?.content).toContain('Handtücher');
    expect(hits[0]!.content.length).toBeLessThanOrEqual(1000);
  });

  describeHybrid();

  function describeHybrid() {
    let fake: FakeEmbeddingsServer;
    beforeAll(async () => {
      fake = await startFakeEmbeddings();
    });
    afterAll(async () => {
      await fake.close();
    });

    it('fuses vector similarity with full-text search when embeddings are configured', async () => {
      const embeddings = httpEmbeddings({ baseUrl: fake.url, apiKey: 'emb-secret', model: 'fake' });
      const bot = await tenant.bot();
      const [parking, pets] = await addEntries(
        ctx,
        tenant.id,
        bot.id,
        [
          { title: 'Anreise', content: 'Parkplätze für Autos gibt es hinter dem Haus.' },
          { title: 'Tiere', content: 'Hunde und andere Haustiere sind leider nicht erlaubt.' },
        ],
        embeddings,
      );
      expect(fake.requests[0]?.authorization).toBe('Bearer emb-secret');
      const query = 'Wo kann ich mein Fahrzeug abstellen?';
      expect(await searchKnowledge(get().db, tenant.id, { botId: bot.id, query })).toEqual([]);
      const hybrid = await searchKnowledge(get().db, tenant.id, { botId: bot.id, query, embeddings });
      expect(hybrid[0]?.entryId).toBe(parking);
      expect(hybrid[0]!.score).toBeGreaterThanOrEqual(0.4);
      expect(hybrid[0]!.score).toBeLessThanOrEqual(1);
      expect(hybrid.find((h) => h.entryId === pets)?.score ?? 0).toBeLessThan(0.1);
      // A lexical match keeps at least its full-text score when vectors are added.
      const lexical = await searchKnowledge(get().db, tenant.id, { botId: bot.id, query: 'Haustiere' });
      const fused = await searchKnowledge(get().db, tenant.id, {
        botId: bot.id,
        query: 'Haustiere',
        embeddings,
      });
      expect(fused[0]?.entryId).toBe(pets);
      expect(fused[0]!.score).toBeGreaterThanOrEqual(lexical[0]!.score);
    });

    it('uses the cosine similarity as a second opinion in the answerability decision', async () => {
      const embeddings = httpEmbeddings({ baseUrl: fake.url, model: 'fake' });
      const bot = await tenant.bot();
      const [parking, pets] = await addEntries(
        ctx,
        tenant.id,
        bot.id,
        [
          { title: 'Anreise', content: 'Parkplätze für Autos gibt es hinter dem Haus.' },
          { title: 'Tiere', content: 'Hunde und andere Haustiere sind leider nicht erlaubt.' },
        ],
        embeddings,
      );
      const ask = (query: string, withVectors: boolean) =>
        searchForAnswer(get().db, tenant.id, {
          botId: bot.id,
          query,
          minScore: 0.4,
          embeddings: withVectors ? embeddings : null,
        });
      // Lexically only the pets entry shares a word ("erlaubt"); in meaning it is far from parking.
      const lexical = await ask('Ist Parken erlaubt?', false);
      expect(lexical.searched.map((h) => h.entryId)).toEqual([pets]);
      const hybrid = await ask('Ist Parken erlaubt?', true);
      expect(hybrid.searched.find((h) => h.entryId === pets)?.evidence?.cosine ?? 1).toBeLessThan(0.3);
      expect(hybrid.decision.answer).toBe(true);
      expect(hybrid.hits.map((h) => h.entryId)).toEqual([parking]);
      // A question near no entry in meaning and sharing no word is handed over.
      const none = await ask('Wie wird das Wetter morgen?', true);
      expect(none.decision.answer).toBe(false);
      expect(none.hits).toEqual([]);
    });

    it('falls back to full-text search when the embeddings endpoint fails', async () => {
      const embeddings = httpEmbeddings({ baseUrl: fake.url, model: 'fake' });
      fake.failNext = 1;
      const hits = await searchKnowledge(get().db, tenant.id, { botId, query: 'Preise', embeddings });
      expect(hits[0]?.entryId).toBe(ids.prices);
    });
  }
});

describeEachBackend('knowledge search in a large knowledge base', (get) => {
  let tenant: TenantFixture;
  let botId: string;
  const COMMON = 2_100;

  beforeAll(async () => {
    const ctx = await createContext(testConfig(), { db: get().db, coordination: memoryCoordination() });
    tenant = await buildTenant(ctx);
    botId = (await tenant.bot()).id;
    // More chunks hold "Mitgliedsbeitrag" than a word's own pull is allowed to read; a few hold
    // a rare word, one of them without the common word.
    await get().db.query(
      `WITH bodies AS (
         SELECT n, CASE WHEN n = 1 THEN 'Die Kletterwand steht im Keller.'
                        WHEN n <= 4 THEN 'Mitgliedsbeitrag und Kletterwand Nummer ' || n
                        ELSE 'Mitgliedsbeitrag Hinweis Nummer ' || n END AS body
         FROM generate_series(1, $3::int) AS n
       ), entries AS (
         INSERT INTO knowledge_entries (tenant_id, bot_id, title, content, language, chunk_count)
         SELECT $1, $2, 'Eintrag ' || n, body, 'de', 1 FROM bodies RETURNING id, title, content
       )
       INSERT INTO knowledge_chunks (tenant_id, entry_id, bot_id, position, content, tsv)
       SELECT $1, e.id, $2, 0, e.content,
              setweight(to_tsvector('german', e.title), 'A') || setweight(to_tsvector('german', e.content), 'B')
       FROM entries e`,
      [tenant.id, botId, COMMON],
    );
  });

  const search = (query: string) => searchKnowledge(get().db, tenant.id, { botId, query, limit: 3 });

  it('finds a rare word next to a word that thousands of chunks hold', async () => {
    const hits = await search('Mitgliedsbeitrag Kletterwand');
    expect(hits).toHaveLength(3);
    expect(hits.every((h) => /Kletterwand/.test(h.content))).toBe(true);
    const alone = await search('Wo ist die Kletterwand?');
    expect(alone.map((h) => h.content)).toContain('Die Kletterwand steht im Keller.');
  });

  it('still answers from the common word when the other words find too little', async () => {
    const hits = await search('Mitgliedsbeitrag');
    expect(hits).toHaveLength(3);
    expect(hits.every((h) => /Mitgliedsbeitrag/.test(h.content))).toBe(true);
    const unknown = await search('Mitgliedsbeitrag Zauberschloss');
    expect(unknown).toHaveLength(3);
    expect(unknown.every((h) => /Mitgliedsbeitrag/.test(h.content))).toBe(true);
  });
});
