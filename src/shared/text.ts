import { franc } from 'franc-min';

/**
 * Pure text handling of the knowledge base: language detection, chunking with overlap, the
 * words of an entry (typo vocabulary) and the words of a query.
 */

export const LANGUAGES = ['de', 'en', 'fr', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];

/** PostgreSQL text search configuration of each supported language. */
export const TS_CONFIG: Record<Language, string> = {
  de: 'german',
  en: 'english',
  fr: 'french',
  it: 'italian',
};

const FRANC_TO_LANGUAGE: Record<string, Language> = { deu: 'de', eng: 'en', fra: 'fr', ita: 'it' };

/** The platform's home language; used when a text is too short to tell. */
export const DEFAULT_LANGUAGE: Language = 'de';

/**
 * The language of an entry among the four supported ones. Texts under ~20 letters are too short
 * for trigram statistics, so they fall back to German rather than to a random guess.
 */
export function detectLanguage(text: string): { language: Language; detected: boolean } {
  const sample = text.slice(0, 5000);
  const code = franc(sample, { only: Object.keys(FRANC_TO_LANGUAGE), minLength: 20 });
  const language = FRANC_TO_LANGUAGE[code];
  return language ? { language, detected: true } : { language: DEFAULT_LANGUAGE, detected: false };
}

export interface ChunkOptions {
  /** Upper bound of a chunk in characters. */
  maxChars: number;
  /** Characters the next chunk repeats from the end of the previous one. */
  overlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { maxChars: 1000, overlapChars: 200 };

/**
 * Splits text into chunks of at most maxChars, preferring paragraph, then sentence, then word
 * boundaries. Consecutive chunks overlap so a fact that straddles a border is found whole in
 * at least one of them.
 */
export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  const clean = text.replace(/\r\n?/g, '\n').trim();
  if (clean === '') return [];
  const { maxChars, overlapChars } = options;
  const chunks: string[] = [];
  let start = 0;
  while (start < clean.length) {
    let end = Math.min(start + maxChars, clean.length);
    if (end < clean.length) end = breakPoint(clean, start + Math.floor(maxChars / 2), end);
    const chunk = clean.slice(start, end).trim();
    if (chunk) chunks.push(chunk);
    if (end >= clean.length) break;
    let next = Math.max(end - overlapChars, start + 1);
    // Start the overlap at a word so no chunk begins with half a word.
    while (next < end && !/\s/.test(clean[next - 1] ?? ' ')) next += 1;
    start = next < end ? next : end;
  }
  return chunks;
}

function breakPoint(text: string, from: number, to: number): number {
  const window = text.slice(from, to);
  const paragraph = window.lastIndexOf('\n\n');
  if (paragraph >= 0) return from + paragraph + 2;
  let sentence = -1;
  for (const match of window.matchAll(/[.!?:;]\s|\n/g)) sentence = match.index + match[0].length;
  if (sentence >= 0) return from + sentence;
  const space = window.search(/\s\S*$/);
  if (space >= 0) return from + space + 1;
  return to;
}

const LETTERS = /\p{L}+/gu;
const WORDS = /[\p{L}\p{N}]+/gu;

/** Distinct words (4–40 letters, lowercase) of a text, for the tenant's typo vocabulary. */
export function vocabularyOf(text: string, max = 5000): string[] {
  const words = new Set<string>();
  for (const match of text.normalize('NFC').toLowerCase().matchAll(LETTERS)) {
    const word = match[0];
    if (word.length >= 4 && word.length <= 40) words.add(word);
    if (words.size >= max) break;
  }
  return [...words].sort();
}

/**
 * Question and politeness words that the four stop-word lists keep but that say nothing about
 * the topic ("Wann habt ihr geöffnet, bitte?" is about opening hours, not about "habt").
 */
const FILLER = new Set(
  [
    'wann warum wieso weshalb woher wohin bitte danke gerne gern hallo möchte möchten würde würden',
    'gibt habt könnt könnte könnten kann können sagen wissen frage fragen eigentlich mal hi hey',
    'please thanks thank hello tell know want would could like question bonjour merci svp quand',
    'comment pourquoi voudrais savoir puis peux ciao grazie quando perché perche vorrei sapere posso',
    'salve',
  ]
    .join(' ')
    .split(' '),
);

export const MAX_QUERY_WORDS = 16;

/**
 * Words that begin names and are often abbreviated there ("Saint Edmund's" written "St.
 * Edmund's"): they are no key term of a question.
 */
export const NAME_PREFIXES: ReadonlySet<string> = new Set([
  'saint',
  'sankt',
  'san',
  'santa',
  'mount',
  'fort',
  'doctor',
  'professor',
]);

/**
 * Codes, part numbers, versions, e-mail addresses and numbers with separators: letter/digit
 * runs joined by `-./,:_'@+` with at least one digit or an `@`, or a run mixing letters and
 * digits ("AS-206", "XK-200/B", "2.4.1", "info@firma.de", "1.299,00", "as206").
 */
const CODE = /[\p{L}\p{N}]+(?:[-./,:_'@+][\p{L}\p{N}]+)+|\p{L}+\p{N}[\p{L}\p{N}]*|\p{N}+\p{L}[\p{L}\p{N}]*/gu;
const RUNS = /[\p{L}\p{N}]+/gu;

function isCode(token: string): boolean {
  return /\p{N}/u.test(token) || token.includes('@');
}

/** The one form a code takes in the index and in queries: its letters and digits, lowercase. */
function joinedCode(token: string): string {
  return (token.toLowerCase().match(RUNS) ?? []).join('');
}

/**
 * The search forms of each code in a text: joined ("AS-206" → as206), its parts split at
 * separators and at letter/digit borders (as, 206), and for a number with a decimal part the
 * whole number ("1.299,00" → 1299). Indexed beside the text so that `AS-206`, `206` and
 * `as206` meet, and a query's code (searched joined, see queryWords) finds them.
 */
export function codeVariants(text: string): string[] {
  const variants = new Set<string>();
  for (const match of text.normalize('NFC').matchAll(CODE)) {
    const token = match[0];
    if (!isCode(token)) continue;
    const joined = joinedCode(token);
    if (joined.length > 60) continue;
    variants.add(joined);
    for (const run of token.toLowerCase().match(/\p{L}+|\p{N}+/gu) ?? []) {
      if (run.length >= 2 && run !== joined) variants.add(run);
    }
    const number = /^(\p{N}{1,3}(?:[.,' ]\p{N}{3})*)[.,](\p{N}{1,2})$/u.exec(token);
    if (number) variants.add(number[1]!.replace(/\D/g, ''));
  }
  return [...variants];
}

/**
 * The words of a search query: lowercase letter/digit runs, without filler words; a code
 * counts as one word in its joined form ("AS-206" → as206, "415.000" → 415000). Only letters
 * and digits survive, so a word can be handed to to_tsquery without any query syntax in it.
 */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  const text = query.normalize('NFC');
  const add = (word: string) => {
    if (word.length < 2 || word.length > 60 || FILLER.has(word)) return;
    if (words.size < MAX_QUERY_WORDS) words.add(word);
  };
  let rest = text;
  for (const match of text.matchAll(CODE)) {
    if (!isCode(match[0])) continue;
    add(joinedCode(match[0]));
    rest = rest.replace(match[0], ' ');
  }
  for (const match of rest.toLowerCase().matchAll(WORDS)) add(match[0]);
  return [...words];
}

/** Linking elements between the parts of a German compound ("Arbeit-s-zeit", "Tage-s-karte"). */
const LINKS = ['s', 'es', 'n', 'en', 'er', 'e'];

/**
 * The possible parts of a compound word: every split into a head and a tail of at least
 * `minPart` letters, the head also without a linking element. The tenant's vocabulary decides
 * which of them are words (see search.ts), so no language's dictionary is needed.
 */
export function compoundParts(word: string, minPart: number): string[] {
  const parts = new Set<string>();
  if (!/^\p{L}+$/u.test(word)) return [];
  for (let i = minPart; i <= word.length - minPart; i += 1) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    parts.add(head);
    parts.add(tail);
    // The head without its linking element, and inflected forms of either part.
    for (const link of LINKS) {
      if (head.endsWith(link) && head.length - link.length >= minPart) parts.add(head.slice(0, -link.length));
      if (tail.endsWith(link) && tail.length - link.length >= minPart) parts.add(tail.slice(0, -link.length));
      parts.add(tail + link);
    }
  }
  return [...parts];
}

/** The shortest part of a split compound or a joined multiword term ("tag", "bus", "day", "wi"). */
export const MIN_SPLIT_PART = 2;
/** Words shorter than this are not split (two parts of MIN_SPLIT_PART and more). */
export const MIN_SPLIT_WORD = 4;

/**
 * The forms in which the corpus may hold a query word that it does not hold as written: every
 * split into a head and a tail of at least MIN_SPLIT_PART letters (the head also without a
 * German linking element: "tages|karte" → tag, karte), and the hyphenated form of each split
 * ("wifi" → wi-fi, "ebike" → e-bike, "checkin" → check-in). Which of them are words of the
 * corpus is looked up (search.ts) and decided by `decompound`.
 */
export function splitCandidates(word: string): { parts: string[]; hyphenated: string[]; derived: string[] } {
  if (!/^\p{L}+$/u.test(word) || word.length < MIN_SPLIT_WORD)
    return { parts: [], hyphenated: [], derived: [] };
  const parts = new Set<string>();
  const hyphenated: string[] = [];
  for (let i = 1; i < word.length; i += 1) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    hyphenated.push(`${head}-${tail}`);
    if (head.length < MIN_SPLIT_PART || tail.length < MIN_SPLIT_PART) continue;
    addHead(parts, head);
    parts.add(tail);
    // The heads of a long tail, for a compound of three parts ("hochzeits|tanz|kurs").
    if (tail.length >= 2 * MIN_THIRD_PART) {
      for (let j = MIN_THIRD_PART; j <= tail.length - MIN_THIRD_PART; j += 1)
        addHead(parts, tail.slice(0, j));
    }
  }
  return { parts: [...parts], hyphenated, derived: derivedForms(word) };
}

/**
 * The verb a German noun in -ung is made from ("prüfung" → prüfen, "anmeldungen" → anmelden):
 * the stemmer keeps the two apart, an entry often uses the verb where the question uses the noun.
 */
export function derivedForms(word: string): string[] {
  const noun = /^(\p{L}{3,})ung(?:en)?$/u.exec(word);
  return noun ? [`${noun[1]}en`] : [];
}

/**
 * The longest known tail of a compound whose head the corpus lacks ("elektro|fahrrads" →
 * fahrrads), at least MIN_KNOWN_TAIL letters: a part of the word, not the whole of it.
 */
export function knownTail(word: string, known: (part: string) => boolean): string | undefined {
  for (let i = MIN_SPLIT_PART; i <= word.length - MIN_KNOWN_TAIL; i += 1) {
    if (known(word.slice(i))) return word.slice(i);
  }
  return undefined;
}

const MIN_KNOWN_TAIL = 5;

/** The middle and last parts of a compound of three have at least this many letters. */
const MIN_THIRD_PART = 3;

function addHead(parts: Set<string>, head: string): void {
  parts.add(head);
  for (const link of LINKS) {
    if (head.endsWith(link) && head.length - link.length >= MIN_SPLIT_PART)
      parts.add(head.slice(0, -link.length));
  }
}

/**
 * A compound's parts that are words of the corpus: the split whose head and tail the corpus
 * both holds (`known`), the head also without its linking element; a tail the corpus lacks may
 * itself split once more ("hochzeits|tanz|kurs"). Among several splits the one with the longest
 * shorter part wins ("notdienst" splits into not|dienst, never n|otdienst), so that short
 * accidental parts lose. A part of two letters counts only beside a part of three or more
 * ("wi|fi" is no split; "day|pass" is). Returns [] when no split is made of known words.
 */
export function decompound(word: string, known: (part: string) => boolean): string[] {
  if (!/^\p{L}+$/u.test(word) || word.length < MIN_SPLIT_WORD) return [];
  let best: string[] = [];
  let bestScore = 0;
  for (let i = MIN_SPLIT_PART; i <= word.length - MIN_SPLIT_PART; i += 1) {
    const head = knownHead(word.slice(0, i), known, MIN_SPLIT_PART);
    if (head === undefined) continue;
    const tail = word.slice(i);
    const candidates: string[][] = [];
    if (known(tail)) candidates.push([head, tail]);
    else if (tail.length >= 2 * MIN_THIRD_PART) {
      for (let j = MIN_THIRD_PART; j <= tail.length - MIN_THIRD_PART; j += 1) {
        const middle = knownHead(tail.slice(0, j), known, MIN_THIRD_PART);
        if (middle !== undefined && known(tail.slice(j))) candidates.push([head, middle, tail.slice(j)]);
      }
    }
    for (const parts of candidates) {
      const lengths = parts.map((p) => p.length);
      const shortest = Math.min(...lengths);
      // Two parts of two letters are no split ("wi|fi": the hyphenated form decides that).
      if (Math.max(...lengths) < 3) continue;
      // The longest shorter part first, then fewer parts.
      const score = shortest * 10 - parts.length;
      if (score > bestScore) {
        best = parts;
        bestScore = score;
      }
    }
  }
  return best;
}

/** The head as the corpus holds it: as written, or without a German linking element. */
function knownHead(head: string, known: (part: string) => boolean, min: number): string | undefined {
  const forms = [head, ...LINKS.filter((l) => head.endsWith(l)).map((l) => head.slice(0, -l.length))];
  return forms.find((form) => form.length >= min && known(form));
}
