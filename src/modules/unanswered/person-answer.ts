/*
 * Which of a person's replies after a question answers it: not their greeting ("Hallo, hier ist
 * Anna …", "Ich übernehme gern"), but the first reply with substance, its leading greeting
 * sentences left out. Pure.
 */

/** Sentences that only greet, introduce the writer or offer help (German, English, French, Italian). */
const GREETING_SENTENCE = new RegExp(
  [
    '^(hallo|hi|hey|moin|servus|grüß gott|guten (morgen|tag|abend)|hello|good (morning|afternoon|evening)|bonjour|salut|ciao|buongiorno)\\b',
    "^(hier ist|mein name ist|ich bin|this is|my name is|i am|i'm|je suis|sono)\\b",
    "\\b(ich übernehme|übernehme ich|i'll take over|i will take over|je prends le relais)\\b",
    '\\b(wie kann ich( (ihnen|dir|euch))?( weiter)? helfen|was kann ich für (sie|dich|euch) tun|how can i help|how may i help)\\b',
    '^(danke für (ihre|deine) (geduld|nachricht)|thanks for (your )?(waiting|patience|your message))\\b',
    '^(einen moment|moment bitte|one moment|just a moment)\\b',
  ].join('|'),
  'i',
);

/** Splits a text into sentences (keeping their end marks). */
function sentences(text: string): string[] {
  return (text.match(/[^.!?\n]+[.!?]*\s*|\n+/g) ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Whether a sentence only greets (short, and a greeting, introduction or offer of help). */
export function isGreetingSentence(sentence: string): boolean {
  const words = sentence.split(/\s+/).filter(Boolean).length;
  return words <= 12 && GREETING_SENTENCE.test(sentence.replace(/^[\s,;:–-]+/, ''));
}

/** A reply without its leading greeting sentences; empty when it only greets. */
export function withoutGreeting(reply: string): string {
  const parts = sentences(reply);
  let start = 0;
  while (start < parts.length && isGreetingSentence(parts[start]!)) start += 1;
  return parts.slice(start).join(' ').trim();
}

/** The person's answer to a question from their replies after it, oldest first; null when they only greeted. */
export function personAnswerOf(replies: readonly string[]): string | null {
  for (const reply of replies) {
    const answer = withoutGreeting(reply);
    if (answer) return answer;
  }
  return null;
}
