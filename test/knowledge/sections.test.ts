import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/modules/knowledge/imports/document-text.js';
import { entryTitle, packParagraphs, splitSections } from '../../src/modules/knowledge/sections.js';

describe('splitSections', () => {
  it('starts an entry at every heading and titles it with the heading path', () => {
    const sections = splitSections(
      '# Handbuch\n\nEinleitung.\n\n## Installation\n\n### Voraussetzungen\n\nNode 20.\n\n# Betrieb\n\nLäuft.',
      'datei',
    );
    expect(sections).toEqual([
      { title: 'Handbuch', content: 'Einleitung.' },
      { title: 'Handbuch › Installation › Voraussetzungen', content: 'Node 20.' },
      { title: 'Betrieb', content: 'Läuft.' },
    ]);
  });

  it('titles text before the first heading with the document title; setext headings count', () => {
    expect(splitSections('Vorwort.\n\nKapitel\n=======\n\nInhalt.\n\nTeil\n----\n\nMehr.', 'Buch')).toEqual([
      { title: 'Buch', content: 'Vorwort.' },
      { title: 'Kapitel', content: 'Inhalt.' },
      { title: 'Kapitel › Teil', content: 'Mehr.' },
    ]);
  });

  it('keeps # lines inside code fences and strips markup from headings', () => {
    const sections = splitSections(
      '## **Setup** mit [Link](https://x.test)\n\n```sh\n# kein Titel\nnpm i\n```',
      'd',
    );
    expect(sections).toEqual([{ title: 'Setup mit Link', content: '```sh\n# kein Titel\nnpm i\n```' }]);
  });

  it('splits a long section at paragraph boundaries into numbered parts, never across a top-level heading', () => {
    const paragraph = (n: number) => `Absatz ${n} ${'wort '.repeat(30).trim()}.`;
    const long = Array.from({ length: 6 }, (_, i) => paragraph(i)).join('\n\n');
    const sections = splitSections(`# Eins\n\n${long}\n\n# Zwei\n\nKurz.`, 'd', { maxChars: 400 });
    const parts = sections.filter((s) => s.title.startsWith('Eins'));
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[0]!.title).toBe(`Eins (1/${parts.length})`);
    for (const part of parts) {
      expect(part.content.length).toBeLessThanOrEqual(400);
      expect(part.content).toMatch(/^Absatz \d/);
      expect(part.content).not.toContain('Kurz');
    }
    expect(parts.map((p) => p.content).join('\n\n')).toBe(long);
    expect(sections.at(-1)).toEqual({ title: 'Zwei', content: 'Kurz.' });
  });

  it('cuts a single over-long paragraph at sentences', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Satz ${i} ist hier.`).join(' ');
    const parts = packParagraphs(text, 200);
    expect(parts.every((p) => p.length <= 200)).toBe(true);
    expect(parts.every((p) => /\.$/.test(p))).toBe(true);
  });

  it('gives no section for an empty document and keeps titles at 300 characters', () => {
    expect(splitSections('\n\n# Nur Titel\n\n', 'd')).toEqual([]);
    const title = entryTitle(['a'.repeat(200), 'b'.repeat(200)], 'd');
    expect(title).toHaveLength(300);
    expect(title.endsWith('b'.repeat(200))).toBe(true);
  });
});

describe('detectFormat', () => {
  const cases: [string, Buffer, string, string | null, string | null][] = [
    ['PDF by its bytes', Buffer.from('%PDF-1.4 …'), 'x.bin', null, 'pdf'],
    ['DOCX by its ZIP content', Buffer.from('PK\u0003\u0004....word/document.xml'), 'x', null, 'docx'],
    ['another ZIP', Buffer.from('PK\u0003\u0004....xl/workbook.xml'), 'x.xlsx', null, null],
    ['a .pdf name without PDF bytes', Buffer.from('hallo'), 'x.pdf', null, null],
    ['HTML by media type', Buffer.from('<p>x</p>'), 'seite', 'text/html; charset=utf-8', 'html'],
    ['HTML by its start', Buffer.from('  <!DOCTYPE html><p>x</p>'), 'seite', null, 'html'],
    ['Markdown by name', Buffer.from('# x'), 'faq.md', 'application/octet-stream', 'markdown'],
    ['text by name', Buffer.from('x'), 'notiz.txt', null, 'text'],
    ['UTF-8 text without a name', Buffer.from('Grüße'), 'ohne', null, 'text'],
    ['binary', Buffer.from([0, 1, 2, 255]), 'bild.png', 'image/png', null],
  ];
  it.each(cases)('%s', (_name, bytes, fileName, mediaType, expected) => {
    expect(detectFormat(bytes, fileName, mediaType)).toBe(expected);
  });
});
