import { beforeAll, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { memoryCoordination } from '../../src/coordination/index.js';
import { searchKnowledge } from '../../src/modules/knowledge/search.js';
import { removeEntry, replaceEntry } from '../../src/modules/knowledge/service.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { addEntries, knowledgeDeps } from './helpers.js';

describeEachBackend('knowledge ranking (BM25F, codes, compounds, languages)', (get) => {
  let ctx: AppContext;
  let tenant: TenantFixture;
  let botId: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    ctx = await createContext(testConfig(), { db: get().db, coordination: memoryCoordination() });
    tenant = await buildTenant(ctx);
    botId = (await tenant.bot()).id;
    const [brake, shipping, born, died, rail, yoga1, yoga2, yoga3, aqua] = await addEntries(
      ctx,
      tenant.id,
      botId,
      [
        {
          title: 'Bremsbeläge',
          content: 'Der Bremsbelag AS-206 passt an alle Stadträder und kostet 24,90 €.',
        },
        { title: 'Versand', content: 'Bestellungen über 1.250,00 € liefern wir versandkostenfrei.' },
        { title: 'Nikola Tesla', content: 'Nikola Tesla was born in 1856 in Smiljan.', language: 'en' },
        { title: 'Tesla in New York', content: 'Tesla died in 1943 in New York.', language: 'en' },
        { title: 'Ausflüge', content: 'Auf der Insel fahren Touristeneisenbahnen auf alten Strecken.' },
        { title: 'Yoga', content: 'Der Kurs Yoga am Morgen findet im großen Saal statt.' },
        { title: 'Pilates', content: 'Der Kurs Pilates findet im kleinen Saal statt.' },
        { title: 'Rücken', content: 'Der Kurs Rückenfit findet im Keller statt.' },
        { title: 'Wasser', content: 'Aquafit im Becken ist dienstags.' },
      ],
    );
    ids = {
      brake: brake!,
      shipping: shipping!,
      born: born!,
      died: died!,
      rail: rail!,
      yoga1: yoga1!,
      yoga2: yoga2!,
      yoga3: yoga3!,
      aqua: aqua!,
    };
  });

  const search = (query: string, limit = 3) => searchKnowledge(get().db, tenant.id, { botId, query, limit });

  it.each(['Was kostet AS-206?', 'Was kostet AS206?', 'Was kostet 206?', 'as-206 Preis', 'AS 206'])(
    'finds the part number for %j',
    async (query) => {
      const hits = await search(query);
      expect(hits[0]?.entryId).toBe(ids.brake);
      expect(hits[0]!.score).toBeGreaterThanOrEqual(0.4);
    },
  );

  it.each(['Ab 1250 € versandkostenfrei?', 'Versand ab 1.250,00 €', 'ab 1.250 Euro'])(
    'finds an amount with separators for %j',
    async (query) => {
      expect((await search(query))[0]?.entryId).toBe(ids.shipping);
    },
  );

  it("keeps a word that is a stop word only in another language (English 'die')", async () => {
    const hits = await search('What year did Tesla die?');
    expect(hits[0]?.entryId).toBe(ids.died);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(0.4);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]?.score ?? 0);
  });

  it('meets compounds and their parts in both directions', async () => {
    const hits = await search('Welche Touristenstrecken gibt es?');
    expect(hits[0]?.entryId).toBe(ids.rail);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(0.4);
    expect((await search('Eisenbahn'))[0]?.entryId).toBe(ids.rail);
  });

  it('weighs a rare word above a common one (IDF), so scores tell chunks apart', async () => {
    const hits = await search('Kurs Aquafit', 10);
    expect(hits[0]?.entryId).toBe(ids.aqua);
    const common = hits.filter((h) => [ids.yoga1, ids.yoga2, ids.yoga3].includes(h.entryId));
    expect(common.length).toBe(3);
    // Calibrated scores are no longer proportional to BM25; the rare word still sets the top hit clearly apart.
    for (const hit of common) expect(hit.score).toBeLessThan(hits[0]!.score * 0.6);
  });

  it('scores in 0..1, a chunk with every word of the question at the top of the scale', async () => {
    const hits = await search('Aquafit Becken dienstags');
    expect(hits[0]?.entryId).toBe(ids.aqua);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(0.9);
    expect(hits[0]!.score).toBeLessThanOrEqual(1);
  });

  it('keeps the corpus statistics equal to the chunks through create, replace and delete', async () => {
    const db = get().db;
    const drift = async () =>
      db.query(
        `WITH truth AS (
           SELECT coalesce(c.bot_id, c.tenant_id) AS scope_id, l AS lexeme, count(*)::int AS chunks
           FROM knowledge_chunks c CROSS JOIN LATERAL unnest(tsvector_to_array(c.tsv)) AS l
           WHERE c.tenant_id = $1 GROUP BY 1, 2
         ), kept AS (SELECT scope_id, lexeme, chunks FROM knowledge_term_stats WHERE tenant_id = $1)
         SELECT * FROM ((SELECT * FROM truth EXCEPT SELECT * FROM kept) UNION ALL (SELECT * FROM kept EXCEPT SELECT * FROM truth)) d`,
        [tenant.id],
      );
    const corpus = async () =>
      db.query<{ ok: boolean }>(
        `SELECT (SELECT coalesce(sum(chunks), 0) FROM knowledge_corpus_stats WHERE tenant_id = $1)
                = (SELECT count(*) FROM knowledge_chunks WHERE tenant_id = $1)
            AND (SELECT coalesce(sum(total_length), 0) FROM knowledge_corpus_stats WHERE tenant_id = $1)
                = (SELECT coalesce(sum(doc_length), 0) FROM knowledge_chunks WHERE tenant_id = $1) AS ok`,
        [tenant.id],
      );
    expect(await drift()).toEqual([]);
    const [shared] = await addEntries(ctx, tenant.id, null, [
      { title: 'Hausordnung', content: 'Bitte Handtuch mitbringen.' },
    ]);
    await replaceEntry(knowledgeDeps(ctx), tenant.id, { botId }, ids.yoga3!, {
      title: 'Rücken',
      content: 'Rückenfit ist jetzt im Dachgeschoss.',
    });
    await removeEntry(db, tenant.id, { botId }, ids.yoga2!);
    expect(await drift()).toEqual([]);
    expect((await corpus())[0]!.ok).toBe(true);
    // A deleted bot takes its chunks and its statistics along; the tenant-wide ones stay.
    const other = await tenant.bot();
    await addEntries(ctx, tenant.id, other.id, [{ title: 'Temporär', content: 'Nur kurz da.' }]);
    await db.query('DELETE FROM bots WHERE id = $1', [other.id]);
    expect(await drift()).toEqual([]);
    expect((await corpus())[0]!.ok).toBe(true);
    expect((await search('Handtuch'))[0]?.entryId).toBe(shared);
  });
});
