/**
 * Greetings, thanks and sign-offs around a question: what the knowledge search, the answerability
 * decision and the offline answerer leave out of a customer's message. Pure; see
 * docs/knowledge.md "Greetings and sign-offs".
 *
 * Nearly every e-mail and many chat messages open with a salutation ("Hallo,", "Sehr geehrte
 * Damen und Herren,", "Bonjour,") and close with thanks, a closing and a name ("Danke im Voraus!",
 * "Liebe Grüße\nAnna Keller", "Cordiali saluti", "Von meinem iPhone gesendet"). None of these say
 * what the question is about; searched as words they name topics the knowledge base does not
 * hold ("Grüße", "Keller") and turn an answerable question into a hand-over. The message itself
 * is stored and shown whole; only the search reads the question without them.
 */

/** Salutations that open a message, lowercase (German, English, French, Italian). */
const GREETINGS = [
  'sehr geehrte damen und herren',
  'sehr geehrte frau',
  'sehr geehrter herr',
  'sehr geehrte',
  'sehr geehrter',
  'guten morgen',
  'guten tag',
  'guten abend',
  'grüß gott',
  'grüezi',
  'hallo zusammen',
  'hallo',
  'hello',
  'hey',
  'hi',
  'moin moin',
  'moin',
  'servus',
  'liebes',
  'lieber',
  'liebe',
  'dear sir or madam',
  'dear sir/madam',
  'dear sirs',
  'dear',
  'good morning',
  'good afternoon',
  'good evening',
  'greetings',
  'to whom it may concern',
  'madame, monsieur',
  'madame',
  'monsieur',
  'bonjour',
  'bonsoir',
  'salut',
  'chère',
  'cher',
  'buongiorno',
  'buonasera',
  'buon giorno',
  'gentili signori',
  'gentile',
  'egregio',
  'egregia',
  'spettabile',
  'ciao',
  'salve',
];

/** Salutations that are words of a question too: left out only with a name and a comma after them. */
const NEEDS_ADDRESS = new Set([
  'sehr geehrte',
  'sehr geehrter',
  'liebes',
  'lieber',
  'liebe',
  'dear',
  'greetings',
  'madame',
  'monsieur',
  'chère',
  'cher',
  'gentile',
  'egregio',
  'egregia',
  'spettabile',
]);

/** Thanks and polite closing sentences that ask nothing (a whole segment of a line). */
const THANKS = [
  'vielen dank im voraus',
  'vielen dank vorab',
  'danke im voraus',
  'danke vorab',
  'besten dank im voraus',
  'besten dank',
  'herzlichen dank',
  'vielen lieben dank',
  'vielen dank',
  'danke schön',
  'dankeschön',
  'danke sehr',
  'danke',
  'ich freue mich auf ihre antwort',
  'ich freue mich auf eine antwort',
  'ich freue mich auf deine antwort',
  'ich freue mich auf ihre rückmeldung',
  'über eine kurze rückmeldung würde ich mich freuen',
  'über eine rückmeldung würde ich mich freuen',
  'schönen tag noch',
  'schönes wochenende',
  'thanks in advance',
  'thank you in advance',
  'thanks a lot',
  'thanks so much',
  'thank you very much',
  'many thanks',
  'thank you',
  'thanks',
  'thx',
  'ty',
  'looking forward to hearing from you',
  'i look forward to hearing from you',
  'i look forward to your reply',
  'have a nice day',
  'have a great day',
  "merci d'avance",
  'merci par avance',
  'merci beaucoup',
  'merci',
  'bonne journée',
  'bonne soirée',
  'grazie in anticipo',
  'grazie mille',
  'grazie',
  'buona giornata',
  'buona serata',
];

/** Closings: a line (or the end of one) that holds one of these ends the question. */
const CLOSINGS = [
  'mit freundlichen grüßen',
  'mit freundlichem gruß',
  'mit besten grüßen',
  'mit lieben grüßen',
  'mit herzlichen grüßen',
  'freundliche grüße',
  'freundliche grüsse',
  'liebe grüße',
  'liebe grüsse',
  'viele grüße',
  'viele grüsse',
  'beste grüße',
  'beste grüsse',
  'herzliche grüße',
  'herzliche grüsse',
  'schöne grüße',
  'schöne grüsse',
  'sonnige grüße',
  'grüße',
  'grüsse',
  'gruß',
  'gruss',
  'mfg',
  'lg',
  'vg',
  'glg',
  'hg',
  'bg',
  'ciao',
  'tschüss',
  'tschüs',
  'bis bald',
  'best regards',
  'kind regards',
  'warm regards',
  'warmest regards',
  'kindest regards',
  'regards',
  'best wishes',
  'all the best',
  'best',
  'cheers',
  'sincerely',
  'yours sincerely',
  'yours faithfully',
  'yours truly',
  'yours',
  'bien cordialement',
  'cordialement',
  'bien à vous',
  'meilleures salutations',
  'sincères salutations',
  'salutations distinguées',
  'salutations',
  'amicalement',
  'bisous',
  'à bientôt',
  'cordiali saluti',
  'distinti saluti',
  'cari saluti',
  'un caro saluto',
  'un saluto',
  'saluti',
  'a presto',
];

/** Lines that close a message whatever stands around them: devices' signatures, reply headers. */
const SIGNATURE_LINE = new RegExp(
  [
    String.raw`^--\s*$`,
    String.raw`^_{3,}\s*$`,
    String.raw`^(?:von meinem|gesendet von meinem|gesendet mit|sent from my|sent with|envoyé de mon|envoyé depuis mon|inviato da|inviato dal mio)\b`,
    String.raw`^(?:am|on|le|il)\s.*\b(?:schrieb|wrote|a écrit|ha scritto)\b.*:\s*$`,
    String.raw`^-{2,}\s*(?:original|ursprüngliche|weitergeleitete|forwarded|message d'origine|messaggio originale)`,
    String.raw`^(?:from|von|de|da):\s.*@`,
    String.raw`^>`,
  ].join('|'),
  'iu',
);

const byLength = (phrases: string[]) => [...phrases].sort((a, b) => b.length - a.length);
const GREETING_LIST = byLength(GREETINGS);
const THANKS_LIST = byLength(THANKS);
const CLOSING_LIST = byLength(CLOSINGS);

/** Words that join thanks and a closing ("Danke und viele Grüße", "Thanks and best regards"). */
const JOINERS = new Set(['und', 'and', 'et', 'e', '&']);

/** A name: one to three capitalised words ("Anna", "Anna Keller", "Dr. Jan M. Weber", "Tom"). */
const NAME = /^(?:\p{Lu}[\p{L}'’.-]*|[\p{L}]\.)(?:\s+(?:\p{Lu}[\p{L}'’.-]*|von|van|de|di|da|del|zu)){0,3}$/u;
/** A closing's place or team ("Liebe Grüße aus Berlin", "Best regards from the team"). */
const FROM = /^(?:aus|von|vom|from|de|da|dal)\s+\S+(?:\s+\S+){0,2}$/iu;

/** The phrase of `list` that `text` (lowercase) starts with as whole words, or undefined. */
function startsWith(text: string, list: string[]): string | undefined {
  return list.find(
    (phrase) =>
      text.startsWith(phrase) &&
      (text.length === phrase.length || !/[\p{L}\p{N}]/u.test(text[phrase.length]!)),
  );
}

/**
 * Whether a piece of text is nothing but thanks, closings, a closing's place and the sender's
 * name ("Danke, LG Tom", "Vielen Dank und viele Grüße aus Köln", "Best regards, Anna Keller").
 * `closing` says whether it must hold a closing (else thanks alone suffice).
 */
function signOff(text: string): { thanks: boolean; closing: boolean } | undefined {
  let rest = text.trim();
  let thanks = false;
  let closing = false;
  while (rest !== '') {
    const lower = rest.toLowerCase();
    const phrase = startsWith(lower, CLOSING_LIST);
    const thank = phrase === undefined ? startsWith(lower, THANKS_LIST) : undefined;
    if (phrase !== undefined) closing = true;
    else if (thank !== undefined) thanks = true;
    else {
      const tail = rest.replace(/[,.!;:]+$/u, '').trim();
      // The sender's name after thanks or a closing ("Danke, Tom") signs the message off.
      if ((closing || thanks) && NAME.test(tail)) return { thanks, closing: true };
      if (closing && FROM.test(tail)) return { thanks, closing };
      return undefined;
    }
    rest = rest.slice((phrase ?? thank)!.length);
    // Punctuation, emoji and joining words between the parts.
    rest = rest.replace(/^(?:[\s,.!;:)(\-–—_~*]|\p{Extended_Pictographic}|\uFE0F)+/u, '');
    const joiner = /^(\S+)\s+/u.exec(rest);
    if (joiner && JOINERS.has(joiner[1]!.toLowerCase())) rest = rest.slice(joiner[0].length);
    // A closing's place ("aus Berlin") before the name on the next segment.
    const from = /^(?:aus|from|de|da)\s+\p{Lu}[\p{L}-]*[,.!]?\s*/u.exec(rest);
    if (closing && from) rest = rest.slice(from[0].length);
  }
  return thanks || closing ? { thanks, closing } : undefined;
}

/** The message without a salutation at its start (and the name it greets). */
function withoutGreeting(text: string): string {
  const trimmed = text.replace(/^\s+/u, '');
  const lower = trimmed.toLowerCase();
  const phrase = startsWith(lower, GREETING_LIST);
  if (phrase === undefined) return text;
  const after = trimmed.slice(phrase.length);
  // The greeting with a name or "Team …" up to its comma, exclamation mark, colon or line end.
  const addressed = /^(?:\s+[^\n,!:;.?]{0,40}?)?\s*(?:[,!:;]+|\.(?=\s)|(?=\n)|$)/u.exec(after);
  if (addressed) {
    const named = addressed[0].replace(/[,!:;.]+\s*$/u, '').trim();
    if (
      named === '' ||
      NAME.test(named) ||
      /^(?:team|zusammen|everyone|all|there|tutti|à tous|allerseits)\b/iu.test(named)
    )
      return after.slice(addressed[0].length);
  }
  // "Hallo wann ist …": only a word that greets and nothing else ("Dear Park …" stays).
  return /^\s/u.test(after) && !NEEDS_ADDRESS.has(phrase) ? after : text;
}

/** A line that is a whole salutation of its own: dropped wherever it stands before the question. */
function isGreetingLine(line: string): boolean {
  return line.trim() !== '' && withoutGreeting(line).trim() === '';
}

/**
 * The customer's question without its salutation, thanks, closing, name and signature: the
 * text the knowledge search, the answerability decision and the offline answerer read. Lines
 * from a closing on (name, signature, disclaimer, quoted earlier mail) are left out; a closing
 * at the end of the last line ("… Danke, LG Tom") too; a line of thanks alone ("Danke im
 * Voraus!") wherever it stands. Returns the message trimmed when nothing of it is a salutation;
 * an empty string when it is nothing but one ("Hallo!").
 */
export function questionText(message: string): string {
  const lines = message.normalize('NFC').replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  let closed = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (SIGNATURE_LINE.test(line)) {
      if (kept.some((l) => l.trim() !== '')) break;
      continue;
    }
    const off = line === '' ? undefined : signOff(line);
    if (off?.closing) {
      // A closing ends the question; before any question it is only dropped, with the name under it.
      if (kept.some((l) => l.trim() !== '')) break;
      closed = true;
      continue;
    }
    if (closed && NAME.test(line)) continue;
    if (line !== '') closed = false;
    if (off?.thanks) continue;
    if (kept.every((l) => l.trim() === '') && isGreetingLine(line)) continue;
    kept.push(line);
  }
  let text = kept.join('\n').trim();
  text = withoutGreeting(text).trim();
  return withoutTrailingSignOff(text).trim();
}

/** The text without thanks and a closing after its last sentence ("Wann ist Pilates? Danke, LG Tom"). */
function withoutTrailingSignOff(text: string): string {
  for (const match of text.matchAll(/[.!?…]+\s+|\s+[-–—]\s+|,\s+/gu)) {
    const end = match.index + match[0].length;
    if (signOff(text.slice(end))) return text.slice(0, end);
  }
  return text;
}
