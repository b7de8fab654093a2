import { describe, expect, it } from 'vitest';
import { groupKey, groupQuestions, type Occurrence } from '../../src/modules/unanswered/grouping.js';

describe('unanswered questions: the group key', () => {
  it.each([
    ['Haben Sie Parkplätze?', 'Haben Sie parkplätze'],
    ['haben sie PARKPLÄTZE', 'Haben Sie Parkplätze?'],
    ['Parkplätze haben Sie?', 'Haben Sie Parkplätze?'],
    ['Wo ist der Kurs AS-206?', 'wo ist der kurs as206'],
    ['Do you have parking?', 'do you have PARKING ?!'],
  ])('"%s" and "%s" fall into one group', (a, b) => {
    expect(groupKey(a)).not.toBeNull();
    expect(groupKey(a)).toBe(groupKey(b));
  });

  it.each([
    ['Haben Sie Parkplätze?', 'Haben Sie Duschen?'],
    ['Was kostet Yoga?', 'Was kostet Pilates?'],
  ])('"%s" and "%s" stay apart', (a, b) => {
    expect(groupKey(a)).not.toBe(groupKey(b));
  });

  it('has no key for a message of only filler words', () => {
    expect(groupKey('?!')).toBeNull();
  });
});

describe('unanswered questions: grouping', () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 2, 10, 12, minute));
  const occurrence = (question: string, minute: number, extra: Partial<Occurrence> = {}): Occurrence => ({
    messageId: `m${minute}`,
    conversationId: `c${minute}`,
    question,
    at: at(minute),
    handedOver: false,
    personAnswer: null,
    ...extra,
  });

  it('counts, keeps the newest wording and last seen, and sorts by count', () => {
    const groups = groupQuestions([
      occurrence('Habt ihr Parkplätze?', 1),
      occurrence('Was kostet Yoga?', 2),
      occurrence('Parkplätze habt ihr?', 3, { handedOver: true, personAnswer: 'Ja, im Hof.' }),
    ]);
    expect(groups).toHaveLength(2);
    expect(groups[0]).toMatchObject({
      question: 'Parkplätze habt ihr?',
      count: 2,
      handed_over: 1,
      last_seen: at(3),
      conversation_ids: ['c3', 'c1'],
      person_answer: 'Ja, im Hof.',
    });
    expect(groups[1]).toMatchObject({ question: 'Was kostet Yoga?', count: 1 });
  });

  it('leaves out what was resolved, until it is asked again', () => {
    const key = groupKey('Habt ihr Parkplätze?')!;
    const before = groupQuestions([occurrence('Habt ihr Parkplätze?', 1)], new Map([[key, at(2)]]));
    expect(before).toEqual([]);
    const after = groupQuestions(
      [occurrence('Habt ihr Parkplätze?', 1), occurrence('Parkplätze?', 5)],
      new Map([[key, at(2)]]),
    );
    expect(after).toMatchObject([{ count: 1, question: 'Parkplätze?' }]);
  });
});
