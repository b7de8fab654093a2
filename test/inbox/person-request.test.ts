import { describe, expect, it } from 'vitest';
import { asksForPerson } from '../../src/modules/conversations/person-request.js';

const ASKS: string[] = [
  'Ich möchte mit einem Mitarbeiter sprechen',
  'Kann ich bitte mit einem Menschen reden?',
  'Verbinden Sie mich mit einer echten Person',
  'Mitarbeiter bitte',
  'Mensch!',
  'Ich brauche einen Berater',
  'I want to talk to a human',
  'Can I speak to someone?',
  'agent please',
  'Connect me with a real person',
  'I need a representative',
  'Je voudrais parler à un conseiller',
  'Je veux un humain',
  "Puis-je parler à quelqu'un ?",
  'humain svp',
  'Vorrei parlare con un operatore',
  'Voglio parlare con una persona',
  'operatore per favore',
  'Posso parlare con qualcuno?',
];

const DOES_NOT: string[] = [
  '',
  'Wann habt ihr geöffnet?',
  'Einen Tisch für zwei Personen bitte',
  'Ich möchte für eine Person buchen',
  'Wie viele Mitarbeiter arbeiten bei Ihnen in der Werkstatt?',
  'What are your opening hours?',
  'A table for one person, please',
  'Is the course suitable for beginners?',
  'Je voudrais réserver pour une personne',
  "Quels sont vos horaires d'ouverture ?",
  'Vorrei prenotare per una persona',
  'Quanto costa il corso?',
];

describe('asksForPerson', () => {
  it.each(ASKS)('recognises a request for a person: %s', (message) => {
    expect(asksForPerson(message)).toBe(true);
  });
  it.each(DOES_NOT)('is not a request for a person: %s', (message) => {
    expect(asksForPerson(message)).toBe(false);
  });
});
