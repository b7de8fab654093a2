import { franc } from 'franc-min';

/** The four languages the service answers in (security layer: language restriction). */
export const LANGUAGES = ['de', 'en', 'fr', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];

const FRANC_CODES: Record<string, Language> = { deu: 'de', eng: 'en', fra: 'fr', ita: 'it' };

/*
 * Frequent short words per language. Chat messages are often too short for a statistical
 * detector ("Öffnungszeiten?", "what time do you open"), so these decide first and the
 * trigram detector (franc) only breaks ties on longer text.
 */
const MARKERS: Record<Language, ReadonlySet<string>> = {
  de: new Set(
    'ich du sie wir ihr und oder der die das den dem des ein eine einen ist sind nicht wie was wann wo warum wer welche welcher haben habt hat kann können kostet gibt es mit für auf bei von zu zum zur noch auch bitte danke hallo guten tag mein meine ihre ihr euer öffnungszeiten preis termin heute morgen eure euer bin möchte gerne'.split(
      ' ',
    ),
  ),
  en: new Set(
    'i you we they he she it and or the a an is are was were not how what when where why who which do does did have has can could will would my your our their to for on with at of from please thanks thank hello hi opening hours price appointment today tomorrow weather would like'.split(
      ' ',
    ),
  ),
  fr: new Set(
    "je tu il elle nous vous ils elles et ou le la les un une des est sont pas comment quoi quand où pourquoi qui quel quelle quels avez avons peux pouvez pour sur avec chez du de au aux mon ma mes votre vos s'il plaît merci bonjour bonsoir salut heures d'ouverture prix rendez-vous aujourd'hui demain temps voudrais suis".split(
      ' ',
    ),
  ),
  it: new Set(
    'io tu lui lei noi voi loro e o il lo la i gli le un una uno è sono non come cosa quando dove perché chi quale quali avete abbiamo posso potete per su con da di del della al alla mio mia vostro vostra grazie ciao buongiorno buonasera prego orari apertura prezzo appuntamento che mi ci si oggi domani vorrei tempo'.split(
      ' ',
    ),
  ),
};

/** Markers that carry meaning (what a question is about), so they are no stop words. */
const TOPIC_MARKERS = new Set(
  "öffnungszeiten preis termin heute morgen opening hours price appointment today tomorrow weather heures d'ouverture prix rendez-vous aujourd'hui demain temps orari apertura prezzo appuntamento oggi domani tempo".split(
    ' ',
  ),
);

const CHARACTER_HINTS: [RegExp, Language][] = [
  [/[äöüß]/i, 'de'],
  [/[çœêâû]|[a-z]'[aeiouyh]/i, 'fr'],
];

/** Whether a word is one of the frequent short words of any of the four languages. */
export function isFrequentWord(word: string): boolean {
  const lower = word.toLowerCase();
  return !TOPIC_MARKERS.has(lower) && LANGUAGES.some((language) => MARKERS[language].has(lower));
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}']+/gu) ?? [];
}

/*
 * One chat detects its message's language several times (the knowledge search, the
 * answerability decision, the offline model), so the last messages' results are kept: each
 * message is detected once. Bounded by count and by the length of the texts kept.
 */
const recent = new Map<string, Language | null>();
const RECENT_MAX = 256;
const RECENT_MAX_LENGTH = 2000;

/**
 * Detects the language of a user message among German, English, French and Italian.
 * German is the default: the service's home language and the safest fallback.
 */
export function detectLanguage(text: string, fallback: Language = 'de'): Language {
  if (text.length > RECENT_MAX_LENGTH) return detect(text) ?? fallback;
  let found = recent.get(text);
  if (found === undefined) {
    found = detect(text);
    if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
    recent.set(text, found);
  }
  return found ?? fallback;
}

/** The language of a text, or null when nothing tells (the caller's fallback applies). */
function detect(text: string): Language | null {
  const scores: Record<Language, number> = { de: 0, en: 0, fr: 0, it: 0 };
  for (const word of words(text)) {
    for (const language of LANGUAGES) {
      if (MARKERS[language].has(word)) scores[language] += 1;
    }
  }
  for (const [pattern, language] of CHARACTER_HINTS) {
    if (pattern.test(text)) scores[language] += 0.5;
  }
  const ranked = [...LANGUAGES].sort((a, b) => scores[b] - scores[a]);
  const [first, second] = ranked as [Language, Language];
  if (scores[first] > 0 && scores[first] > scores[second]) return first;

  if (text.trim().length >= 20) {
    const code = franc(text, { only: Object.keys(FRANC_CODES), minLength: 10 });
    const detected = FRANC_CODES[code];
    if (detected) return detected;
  }
  return scores[first] > 0 ? first : null;
}
