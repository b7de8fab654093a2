import { describe, expect, it } from 'vitest';
import {
  isGreetingSentence,
  personAnswerOf,
  withoutGreeting,
} from '../../src/modules/unanswered/person-answer.js';

describe("a person's answer to an unanswered question", () => {
  it.each([
    ['Hallo, hier ist Anna aus dem Team.', true],
    ['Guten Tag!', true],
    ['Ich übernehme gern.', true],
    ['Wie kann ich Ihnen helfen?', true],
    ["Hi, I'm Tom from support.", true],
    ['Samstag von 10 bis 16 Uhr.', false],
    [
      'Hallo ist nicht die Antwort, aber samstags haben wir von zehn bis sechzehn Uhr für alle Gäste geöffnet.',
      false,
    ],
    ['Ja, zwei Parkplätze im Hof.', false],
  ])('%s → greeting %s', (sentence, greeting) => {
    expect(isGreetingSentence(sentence)).toBe(greeting);
  });

  it.each([
    ['Hallo! Hier ist Ben. Ja, zwei Parkplätze im Hof.', 'Ja, zwei Parkplätze im Hof.'],
    ['Hallo, hier ist Anna. Ich übernehme gern!', ''],
    ['Samstag von 10 bis 16 Uhr.', 'Samstag von 10 bis 16 Uhr.'],
  ])('%s without its greeting → %s', (reply, answer) => {
    expect(withoutGreeting(reply)).toBe(answer);
  });

  it.each([
    [
      ['Hallo, hier ist Anna.', 'Samstag von 10 bis 16 Uhr.', 'Gern geschehen.'],
      'Samstag von 10 bis 16 Uhr.',
    ],
    [['Guten Morgen! Wie kann ich helfen?'], null],
    [[], null],
  ])('%j → %s', (replies, answer) => {
    expect(personAnswerOf(replies)).toBe(answer);
  });
});
