import { describe, expect, it } from 'vitest';
import {
  mailLanguage,
  parseMailChoice,
  renderMailReply,
  type ReplyBlock,
} from '../../src/modules/email/format.js';
import { stripReply } from '../../src/modules/email/quotes.js';

const block: ReplyBlock = {
  id: '7b3e1f0a-1111-4111-8111-000000000001',
  name: 'Termin',
  items: [
    { id: 'am', title: 'Vormittag', description: '9–12 Uhr' },
    { id: 'pm', title: 'Nachmittag', description: null },
    { id: 'call', title: 'Rückruf' },
  ],
};

describe('renderMailReply', () => {
  it('renders the reply and one block as a numbered list in German', () => {
    const body = renderMailReply({ reply: 'Wann passt es Ihnen?', blocks: [block, block], language: 'de' });
    expect(body).toBe(
      'Wann passt es Ihnen?\n\n1. Vormittag – 9–12 Uhr\n2. Nachmittag\n3. Rückruf\n\nBitte antworten Sie mit der Nummer Ihrer Wahl.\n',
    );
  });

  it('says how to answer in the customer’s language, German when unknown', () => {
    expect(renderMailReply({ reply: 'x', blocks: [block], language: 'en-GB' })).toContain(
      'Please reply with the number of your choice.',
    );
    expect(renderMailReply({ reply: 'x', blocks: [block], language: 'fr' })).toContain('Veuillez répondre');
    expect(renderMailReply({ reply: 'x', blocks: [block], language: 'it' })).toContain('La preghiamo');
    expect(renderMailReply({ reply: 'x', blocks: [block], language: 'de', formal: false })).toContain(
      'Bitte antworte mit der Nummer deiner Wahl.',
    );
    expect(mailLanguage('es')).toBe('de');
    expect(mailLanguage(null)).toBe('de');
  });

  it('flattens Markdown and wraps long lines without breaking words', () => {
    const long = `**Wichtig:** ${'Wort '.repeat(40).trim()} [Preisliste](https://example.com/preise)`;
    const body = renderMailReply({ reply: `# Titel\n${long}`, language: 'de' });
    expect(body).not.toContain('**');
    expect(body).not.toContain('# ');
    expect(body.replace(/\n/g, ' ')).toContain('Preisliste (https://example.com/preise)');
    for (const line of body.split('\n')) expect(line.length).toBeLessThanOrEqual(76);
    expect(body.endsWith('\n')).toBe(true);
  });

  it('shows no list for an empty block', () => {
    expect(renderMailReply({ reply: 'Hallo', blocks: [{ ...block, items: [] }] })).toBe('Hallo\n');
  });
});

describe('parseMailChoice', () => {
  const cases: [string, string | undefined][] = [
    ['2', 'pm'],
    ['2.', 'pm'],
    ['2)', 'pm'],
    [' 3 ', 'call'],
    ['Nr. 1', 'am'],
    ['Option 2', 'pm'],
    ['#3', 'call'],
    ['choix 1', 'am'],
    ['nachmittag', 'pm'],
    ['RÜCKRUF!', 'call'],
    ['2. Nachmittag', 'pm'],
    ['2\n\nViele Grüße\nAnna', 'pm'],
    ['4', undefined],
    ['0', undefined],
    ['Ich hätte gern einen Termin am Freitag', undefined],
    ['2 Personen kommen', undefined],
    ['', undefined],
  ];
  it.each(cases)('%j → %s', (text, id) => {
    expect(parseMailChoice(block, text)?.id).toBe(id);
  });

  it('reads the choice from a stripped reply', () => {
    const mail =
      '2\n\nVon meinem iPhone gesendet\n\n> Am 12.03.2026 um 10:14 schrieb Support <s@x.de>:\n> 1. Vormittag';
    expect(parseMailChoice(block, stripReply(mail).text)?.id).toBe('pm');
  });
});
