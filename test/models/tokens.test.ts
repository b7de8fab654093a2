import { countTokens as countWhole } from 'gpt-tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assembleSystemPrompt, protectForModel } from '../../src/modules/prompt/assemble.js';
import { countTokens } from '../../src/modules/models/tokens.js';

const paragraphs = [
  'Wir haben Montag bis Freitag von 9 bis 18 Uhr geöffnet.',
  '(Hinweis: an Feiertagen geschlossen!)',
  '- Haarschnitt: 35 €\n- Färben ab 60 €',
  '  eingerückter Absatz mit    vielen Leerzeichen  ',
  '<knowledge title="Preise">Ein Kurs kostet 15 Euro &amp; mehr.</knowledge>',
  "Don't park in front of the garage; it's reserved.",
  '123456789 2026-11-22 10:30',
  '🙂 Emoji 🎉 und Ümläute ß',
  'Nous livrons en trois jours ouvrables.',
];

describe('countTokens', () => {
  it('counts long texts paragraph by paragraph exactly like the tokenizer counts the whole', () => {
    const texts: string[] = [];
    for (let i = 0; i < 40; i++) {
      const picked = paragraphs.filter((_, j) => (i * 7 + j * 3) % 4 !== 0);
      const separators = ['\n\n', '\n\n\n', '.\n\n', ' \n\n', '\n \n\n', '!\n\n'];
      texts.push(
        picked
          .map((p, j) => p + separators[(i + j) % separators.length])
          .join('')
          .repeat((i % 3) + 1),
      );
    }
    const bot = {
      name: 'Salon',
      system_prompt: paragraphs.join('\n\n'),
      system_prompt_generated: null,
    } as unknown as Parameters<typeof assembleSystemPrompt>[0];
    const prompt = assembleSystemPrompt(bot, { industry_code: null }, [], { securityLayer: true });
    texts.push(
      prompt.text,
      protectForModel({ systemPrompt: prompt.text, history: [], userMessage: 'Hallo', bot }).system,
    );
    for (const text of texts) {
      expect(text.length).toBeGreaterThan(200);
      expect(countTokens(text)).toBe(countWhole(text));
      // A second count comes from the cached paragraphs and is the same.
      expect(countTokens(text)).toBe(countWhole(text));
    }
  });

  it('counts a prompt with knowledge hits line by line exactly, as the scores change', () => {
    const bot = {
      name: 'Salon',
      system_prompt: 'Du bist der Assistent eines Salons.\n/ Pfad am Zeilenanfang\n  eingerückt',
      system_prompt_generated: null,
    } as unknown as Parameters<typeof assembleSystemPrompt>[0];
    for (let i = 0; i < 20; i++) {
      const hits = paragraphs.slice(0, 3).map((content, rank) => ({
        entryId: `e${rank}`,
        chunkId: `c${rank}`,
        title: `Eintrag ${rank}`,
        content: `${content}\n${paragraphs[(i + rank) % paragraphs.length]}\n/etc/hosts.\n/`,
        score: 0.9 - rank / 10 - i / 100,
        sourceUrl: rank === 1 ? 'https://example.com/a' : null,
        botId: 'b',
      }));
      const prompt = assembleSystemPrompt(bot, { industry_code: null }, hits, { securityLayer: true });
      const forModel = protectForModel({
        systemPrompt: prompt.text,
        history: [],
        userMessage: `Frage ${i}:\n/${paragraphs[i % paragraphs.length]}\n- Punkt ${'x'.repeat(i * 20)}`,
        bot,
      });
      for (const text of [forModel.system, ...forModel.messages.map((m) => m.content)]) {
        expect(countTokens(text)).toBe(countWhole(text));
        expect(countTokens(text)).toBe(countWhole(text));
      }
    }
  });

  it('counts any text with line breaks exactly like the tokenizer counts the whole', () => {
    const pieces = [
      '\n',
      '\n\n',
      '\r\n',
      '/',
      '.',
      '!\n/',
      ' ',
      '\t',
      'Wort',
      'word',
      'Ümläute',
      '42',
      '🙂',
      '<tag>',
      "it's",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 60, maxLength: 200 }), (chosen) => {
        const text = chosen.join('') + '-'.repeat(200);
        expect(countTokens(text)).toBe(countWhole(text));
        expect(countTokens(text)).toBe(countWhole(text));
      }),
      { numRuns: 300 },
    );
  });

  it('counts short texts directly', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('Hallo Welt')).toBe(countWhole('Hallo Welt'));
  });
});
