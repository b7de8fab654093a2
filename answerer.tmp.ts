import { readFileSync } from 'node:fs';
import { offlineAnswer } from './src/modules/models/offline.js';
for (const l of ['de', 'en']) {
  const set = JSON.parse(readFileSync(`eval/knowledge/dev-${l}.json`, 'utf8'));
  const para = new Map(set.paragraphs.map((p: any) => [p.id, p]));
  let ok = 0, n = 0, refused = 0;
  for (const q of set.questions) {
    if (!q.paragraph) continue;
    n++;
    const p: any = para.get(q.paragraph);
    const reply = offlineAnswer({ userMessage: q.question, knowledge: [{ title: p.title, content: p.content, score: 1 }], formalAddress: true } as any);
    if (reply.toLowerCase().replace(/\s+/g, ' ').includes(q.answer.toLowerCase().replace(/\s+/g, ' '))) ok++;
    else if (reply.startsWith('Dazu') || reply.startsWith("I'm sorry")) refused++;
  }
  console.log(l, 'gold hit only: reply has answer', (ok / n).toFixed(3), 'refused', refused, 'of', n);
}
