import type { Language } from '../../shared/language.js';

/**
 * Sentence segmentation and question types for the offline answerer.
 *
 * `Intl.Segmenter` (Unicode sentence boundaries) keeps numbers such as "415.000" and "43.3%"
 * whole; it does break after abbreviations ("St. Johns", "Dr. Meier", "z.B. 3 Uhr") and German
 * ordinals ("am 3. Mai"), so such pieces are joined again below.
 */

const segmenters = new Map<Language, Intl.Segmenter>();

function segmenter(language: Language): Intl.Segmenter {
  let s = segmenters.get(language);
  if (!s) {
    s = new Intl.Segmenter(language, { granularity: 'sentence' });
    segmenters.set(language, s);
  }
  return s;
}

/** Abbreviations after which a full stop does not end a sentence (lowercase, without the stop). */
const ABBREVIATIONS = new Set(
  [
    'st sta str nr no tel fax mr mrs ms dr prof inc ltd co corp jr sr vs etc approx dept est fig vol ca bzw evtl ggf inkl exkl zzgl',
    'usw vgl sog ggü max min mind gem lt geb hr fr frau herr abs art bspw dipl ing mio mrd tsd jan feb mär apr jun jul aug sep sept okt oct nov dez dec',
    'mo di mi do sa so mon tue wed thu fri sat sun rer nat med dent phil jur oec pol habil vet capt gen lt col',
  ]
    .join(' ')
    .split(' '),
);

/** Whether the sentence piece `piece` does not really end where the segmenter cut it. */
function continues(piece: string, next: string, language: Language): boolean {
  const trimmed = piece.trimEnd();
  if (!trimmed.endsWith('.')) return false;
  // The next piece starts in lower case or with a digit: no new sentence ("z.B. 3 Uhr").
  if (/^[\p{Ll}\p{N}]/u.test(next)) return true;
  const last = /(?:^|[\s(„"'])([\p{L}.]+)\.$/u.exec(trimmed)?.[1]?.toLowerCase() ?? '';
  // Initials and dotted abbreviations: "E.I. du Pont", "z.B.", "U.S."
  if (/^\p{L}$/u.test(last) || /^(?:\p{L}\.)+\p{L}$/u.test(last)) return true;
  if (ABBREVIATIONS.has(last)) return true;
  // German ordinals: "am 3. Mai", "ab der 13. Woche", "im 2. Stock".
  if (language === 'de' && /(?:^|\s)\d{1,2}\.$/.test(trimmed)) return true;
  return false;
}

/** The text's sentences, whole and trimmed. */
export function splitSentences(text: string, language: Language): string[] {
  const pieces = [...segmenter(language).segment(text)].map((s) => s.segment);
  const sentences: string[] = [];
  let current = '';
  for (const [i, piece] of pieces.entries()) {
    current += piece;
    const next = pieces[i + 1];
    if (next !== undefined && continues(current, next, language)) continue;
    if (current.trim()) sentences.push(current.trim());
    current = '';
  }
  if (current.trim()) sentences.push(current.trim());
  return sentences;
}

/** What a question asks for, told by its question words. */
export type QuestionType = 'person' | 'time' | 'price' | 'number' | 'place' | 'other';

const QUESTION_TYPES: [RegExp, QuestionType][] = [
  // A price is a number with a currency: "38 Zimmer" does not answer "Was kostet ein Zimmer?".
  [
    /\b(?:was\s+kostet|was\s+kosten|wie\s+teuer|wie\s*viel\s+(?:kostet|kosten|zahle|zahlt|bezahle|verlangt)|welchen?\s+preis|wie\s+hoch\s+(?:ist|sind)\s+(?:die|der|das)\s+\S*(?:gebühr|gebühren|preis|preise|miete|beitrag|kaution|kosten)|combien\s+co[uû]te|quanto\s+cost[ao])\b/i,
    'price',
  ],
  [
    /\b(?:how\s+much\b.*\b(?:cost|costs|charge|charged|pay|fee)|how\s+much\s+(?:is|are)\s+(?:a|an|the)\b|what\s+(?:does|do|did)\b.*\bcost|what\s+(?:is|was|are)\s+the\s+(?:price|cost|fee|charge)s?)\b/i,
    'price',
  ],
  [
    /\b(?:wie\s+viele?|wieviele?|wie\s+hoch|wie\s+lange?|wie\s+groß|wie\s+weit|wie\s+schwer|wie\s+alt|ab\s+welche[mr]?|wie\s+oft|um\s+wie\s+viel)\b/i,
    'number',
  ],
  [
    /\b(?:how\s+(?:many|much|long|far|big|large|old|often|heavy|high)|what\s+(?:is|was)\s+the\s+number)\b/i,
    'number',
  ],
  [
    /\b(?:wann|seit\s+wann|bis\s+wann|um\s+wie\s+viel\s+uhr|welche[mn]?\s+(?:tag|datum|jahr|uhrzeit)|in\s+welchem\s+jahr)\b/i,
    'time',
  ],
  [/\b(?:when|what\s+time|what\s+year|which\s+(?:day|date|year)|in\s+what\s+year|until\s+when)\b/i, 'time'],
  [/(?:^|\s)(?:wer|wem|wen|wessen|who|whom|whose)\b/i, 'person'],
  [/(?:^|\s)(?:wo|wohin|woher|where)\b/i, 'place'],
];

export function questionType(question: string): QuestionType {
  for (const [pattern, type] of QUESTION_TYPES) if (pattern.test(question)) return type;
  return 'other';
}

const MONTHS =
  /\b(?:januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember|january|february|march|may|june|july|october|december|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|monday|tuesday|wednesday|thursday|friday|saturday|sunday|uhr|am|pm|o'clock|werktag\w*|wochen\w*|tage?n?|days?|weeks?|months?|years?|jahr\w*|monat\w*)\b/i;

/** An amount of money, or a word saying that something costs nothing. */
const PRICE =
  /(?:[€$£]|\b(?:eur|euro|usd|chf|gbp|dollars?|pounds?|cents?|kostenlos|kostenfrei|gratis|umsonst|free|gratuit|gratuito)\b)/i;

/** How well a sentence offers what the question type asks for (0..1). */
export function typeFit(sentence: string, type: QuestionType, question: string): number {
  switch (type) {
    case 'price':
      return PRICE.test(sentence) ? 1 : 0;
    case 'number':
      return /\p{N}/u.test(sentence) ? 1 : 0;
    case 'time':
      return /\p{N}/u.test(sentence) || MONTHS.test(sentence) ? 1 : 0;
    case 'person': {
      // A name the question does not already give: two capitalised words in a row past the
      // sentence's start (German capitalises every noun, so one is not enough).
      const asked = new Set((question.match(/\p{Lu}\p{L}+/gu) ?? []).map((w) => w.toLowerCase()));
      const names = (sentence.match(/(?<=\s)\p{Lu}[\p{Ll}.]+\s+\p{Lu}\p{Ll}+/gu) ?? []).filter(
        (n) => !n.split(/\s+/).some((part) => asked.has(part.toLowerCase())),
      );
      return names.length > 0 ? 1 : 0;
    }
    case 'place':
      return /\b(?:in|im|am|an|auf|bei|hinter|neben|vor|at|on|behind|next|near|inside|floor|stock|straße|str\.|street|platz)\b/i.test(
        sentence,
      )
        ? 1
        : 0;
    default:
      return 0;
  }
}

const CALENDAR_WORDS = new Set(
  [
    'monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays',
    'fridays saturdays sundays january february march april may june july august september october',
    'november december lundi mardi mercredi jeudi vendredi samedi dimanche lunedì martedì mercoledì',
    'giovedì venerdì sabato domenica',
  ]
    .join(' ')
    .split(/\s+/),
);

/**
 * Names in a question: capitalised words after a sentence's first word, except weekdays and
 * months, lowercase and split at apostrophes and hyphens ("Edmund's" → edmund). None for German,
 * where every noun is capitalised and capitals do not mark a name.
 */
export function questionNames(question: string, language: Language): string[] {
  if (language === 'de') return [];
  const names = new Set<string>();
  for (const sentence of question.normalize('NFC').split(/[.!?]\s+/)) {
    const tokens = sentence.match(/[\p{L}\p{N}'’-]+/gu) ?? [];
    tokens.forEach((token, i) => {
      if (i === 0 || !/^\p{Lu}/u.test(token) || /^\p{Lu}+$/u.test(token)) return;
      for (const part of token.toLowerCase().split(/['’-]/)) {
        if (part.length >= 2 && part !== 's' && !CALENDAR_WORDS.has(part)) names.add(part);
      }
    });
  }
  return [...names];
}
