/**
 * "No answer" as a structured signal of the model. The offline model sets `noAnswer` on its
 * reply; a real provider is asked by the prompt's escalation rule to put the marker
 * `[NO_ANSWER]` into its reply when the knowledge does not answer the question. The pipeline
 * recognises either, removes the marker (also from a stream's deltas) and hands over: the
 * marker never reaches a customer.
 */
import type { ModelReply } from './provider.js';

export const NO_ANSWER_MARKER = '[NO_ANSWER]';

/** The reply's text without the marker, and whether the model said it has no answer. */
export function recogniseNoAnswer(reply: ModelReply): { text: string; noAnswer: boolean } {
  if (!reply.text.includes(NO_ANSWER_MARKER)) return { text: reply.text, noAnswer: reply.noAnswer === true };
  const text = reply.text
    .split(NO_ANSWER_MARKER)
    .join('')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
  return { text, noAnswer: true };
}

/**
 * Removes the marker from a stream of deltas: a delta's end that could begin the marker is held
 * back until the next delta (or `flush`) shows whether it does.
 */
export function noAnswerFilter(): { push(text: string): string; flush(): string } {
  let pending = '';
  return {
    push(text) {
      pending = (pending + text).split(NO_ANSWER_MARKER).join('');
      let hold = 0;
      for (let n = Math.min(NO_ANSWER_MARKER.length - 1, pending.length); n > 0; n--) {
        if (NO_ANSWER_MARKER.startsWith(pending.slice(-n))) {
          hold = n;
          break;
        }
      }
      const out = pending.slice(0, pending.length - hold);
      pending = pending.slice(pending.length - hold);
      return out;
    },
    flush() {
      const out = pending;
      pending = '';
      return out;
    },
  };
}
