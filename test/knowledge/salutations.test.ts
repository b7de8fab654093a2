import { describe, expect, it } from 'vitest';
import { questionText } from '../../src/shared/salutations.js';
import { queryWords } from '../../src/shared/text.js';

/** Greetings, thanks, closings, names and signatures are no part of the question. */

describe('questionText: the question without salutation and sign-off', () => {
  it.each([
    // German
    ['wann ist Pilates?\n\nLiebe Grüße', 'wann ist Pilates?'],
    ['wann ist Pilates?\n\nViele Grüße\nAnna Keller', 'wann ist Pilates?'],
    ['Hallo! Wann ist Pilates?', 'Wann ist Pilates?'],
    ['Hallo,\n\nwann ist Pilates?', 'wann ist Pilates?'],
    ['Hallo wann ist Pilates', 'wann ist Pilates'],
    ['Guten Tag,\nwas kostet eine Zehnerkarte?\nDanke im Voraus!\nLG', 'was kostet eine Zehnerkarte?'],
    ['Wann ist Pilates? Danke, LG Tom', 'Wann ist Pilates?'],
    ['Liebe Frau Keller, wann ist Pilates?', 'wann ist Pilates?'],
    [
      'Sehr geehrte Damen und Herren,\n\nwas kostet die Jahresinspektion?\n\nMit freundlichen Grüßen\nDr. Jan Weber\nMusterstraße 5\n12345 Berlin\n\nDiese E-Mail ist vertraulich.',
      'was kostet die Jahresinspektion?',
    ],
    ['Was kostet die Jahresinspektion?\n\nVon meinem iPhone gesendet', 'Was kostet die Jahresinspektion?'],
    [
      'Moin, habt ihr samstags offen?\nVielen Dank und viele Grüße aus Köln\nJens',
      'habt ihr samstags offen?',
    ],
    ['Danke!\nNoch eine Frage: Wann ist Pilates?', 'Noch eine Frage: Wann ist Pilates?'],
    [
      'Was kostet ein Kurs?\n\nGruß\nM. Schulz\n\nAm 3. März 2026 schrieb Studio <info@studio.de>:\n> Hallo',
      'Was kostet ein Kurs?',
    ],
    // English
    [
      'Hi John,\nwhat time does the pool open?\nThanks in advance!\nBest regards,\nMary Smith',
      'what time does the pool open?',
    ],
    ['Hello, do you have parking?\n\nKind regards\nTom\n\nSent from my iPhone', 'do you have parking?'],
    ['Dear Sir or Madam,\nHow much is a day pass? Thanks, Anna', 'How much is a day pass?'],
    ['Is there a sauna? Cheers', 'Is there a sauna?'],
    // French
    ['Bonjour,\nQuels sont vos horaires ?\nCordialement\nMarie Dupont', 'Quels sont vos horaires ?'],
    ["Bonjour Madame, combien coûte le cours ?\nMerci d'avance et bonne journée", 'combien coûte le cours ?'],
    ['Combien coûte le cours ?\nBien à vous,\nPierre\nEnvoyé de mon iPhone', 'Combien coûte le cours ?'],
    // Italian
    ['Buongiorno, quanto costa il corso?\nCordiali saluti\nLuca Rossi', 'quanto costa il corso?'],
    ['Salve, a che ora apre la piscina? Grazie mille, un saluto', 'a che ora apre la piscina?'],
    [
      'Ciao Marco,\nquanto costa il parcheggio?\nGrazie in anticipo\nDistinti saluti',
      'quanto costa il parcheggio?',
    ],
  ])('%j → %j', (message, question) => {
    expect(questionText(message)).toBe(question);
  });

  it.each([
    // Words that greet or close elsewhere but are the question here.
    'Best time to visit the museum?',
    'Dear Park opening hours?',
    'Gibt es einen Gruß auf der Gutscheinkarte?',
    'Was kostet Yoga, Pilates?',
    'Hi-Fi-Anlage im Saal?',
    'Kann ich danke sagen?',
    'Merci, quels sont vos horaires ?',
  ])('leaves %j as it is', (message) => {
    expect(questionText(message)).toBe(message);
  });

  it.each(['Hallo', 'Danke!', 'Thanks, John', 'Liebe Grüße\nAnna', 'Cordiali saluti'])(
    'is empty for a message that is nothing but a salutation: %j',
    (message) => {
      expect(questionText(message)).toBe('');
    },
  );

  it('leaves no greeting, closing or name among the searched words', () => {
    const words = queryWords(
      questionText('Hallo Frau Keller,\n\nwann ist Pilates?\n\nViele Grüße\nAnna Keller'),
    );
    expect(words).toEqual(['ist', 'pilates']);
  });
});
