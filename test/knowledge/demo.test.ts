import { expect, it } from 'vitest';
import { DEMO_KNOWLEDGE, seedDemo } from '../../src/demo.js';
import { searchKnowledge } from '../../src/modules/knowledge/search.js';
import { describeApp } from '../helpers/app.js';

describeApp('demo knowledge base', (get) => {
  it('gives the demo bot a knowledge base the chat can answer from', async () => {
    const seed = await seedDemo(get().ctx);
    const entries = await get().db.query<{ title: string; bot_id: string }>(
      'SELECT title, bot_id FROM knowledge_entries WHERE tenant_id = $1 ORDER BY title',
      [seed.tenantId],
    );
    expect(entries.map((e) => e.title).sort()).toEqual(DEMO_KNOWLEDGE.map((e) => e.title).sort());
    expect(entries.every((e) => e.bot_id === seed.botId)).toBe(true);
    for (const [query, title] of [
      ['Wann habt ihr geöffnet?', 'Öffnungszeiten'],
      ['Was kostet eine Zehnerkarte?', 'Preise'],
      ['Wann ist Yoga?', 'Kurse'],
    ]) {
      const hits = await searchKnowledge(get().db, seed.tenantId, {
        botId: seed.botId,
        query: query!,
        minScore: 0.4,
      });
      expect(hits[0]?.title, query).toBe(title);
    }
  });
});
