import { expect, it } from 'vitest';
import { NO_ANSWER_MARKER, noAnswerFilter, recogniseNoAnswer } from '../../src/modules/models/no-answer.js';

const reply = (text: string, noAnswer?: boolean) => ({
  text,
  model: 'm',
  promptTokens: 1,
  completionTokens: 1,
  ...(noAnswer === undefined ? {} : { noAnswer }),
});

it('recognises the marker anywhere, removes it, and keeps the offline flag', () => {
  expect(recogniseNoAnswer(reply('[NO_ANSWER] Dazu liegt mir nichts vor.'))).toEqual({
    text: 'Dazu liegt mir nichts vor.',
    noAnswer: true,
  });
  expect(recogniseNoAnswer(reply('Dazu liegt mir nichts vor. [NO_ANSWER]')).noAnswer).toBe(true);
  expect(recogniseNoAnswer(reply('Geöffnet ab 9 Uhr.'))).toEqual({
    text: 'Geöffnet ab 9 Uhr.',
    noAnswer: false,
  });
  expect(recogniseNoAnswer(reply('Leider nicht.', true)).noAnswer).toBe(true);
});

it('keeps the marker out of stream deltas, also when split across them, and lets look-alikes through', () => {
  const filter = noAnswerFilter();
  const pieces = ['[NO', '_ANS', 'WER] Da', 'zu nichts [', 'Hinweis]'];
  const out = pieces.map((p) => filter.push(p)).join('') + filter.flush();
  expect(out).not.toContain(NO_ANSWER_MARKER);
  expect(out).toBe(' Dazu nichts [Hinweis]');
});
