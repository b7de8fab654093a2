/**
 * Whether a customer's message asks for a person instead of the bot, in German, English,
 * French or Italian (pure). A message asks when it names a person-word together with a verb of
 * talking or connecting ("Ich möchte mit einem Mitarbeiter sprechen", "parler à un conseiller"),
 * or a strong person-word ("human", "Mitarbeiter", "humain", "operatore") with a verb of
 * wanting, or is a short call for one ("Mensch bitte", "agent!"). Counting people ("für zwei
 * Personen", "a table for one person") is not a request. Cases: test/inbox/person-request.test.ts.
 */
import { detectLanguage, type Language } from '../../shared/language.js';

/** Words for a person that say "a person, not the bot" on their own. */
const STRONG = [
  // de
  'mitarbeiter',
  'mitarbeiterin',
  'mitarbeitenden',
  'mensch',
  'menschen',
  'berater',
  'beraterin',
  'kundenservice',
  'kundendienst',
  'echte person',
  'echten person',
  'echter person',
  // en
  'human',
  'human being',
  'agent',
  'live agent',
  'real person',
  'representative',
  'operator',
  'customer service',
  'staff member',
  'someone from your team',
  // fr
  'humain',
  'etre humain',
  'conseiller',
  'conseillere',
  'operateur',
  'operatrice',
  'vraie personne',
  // it
  'operatore',
  'operatrice',
  'umano',
  'essere umano',
  'consulente',
  'persona vera',
  'persona reale',
];

/** Words for a person that need a verb of talking or connecting. */
const WEAK = [
  'person',
  'jemand',
  'jemandem',
  'jemanden',
  'someone',
  'somebody',
  'personne',
  "quelqu'un",
  'quelquun',
  'persona',
  'qualcuno',
];

/** Verbs (and stems) of talking to or being connected with someone. */
const TALK = [
  // de
  'sprechen',
  'reden',
  'verbinden',
  'verbindest',
  'verbinde',
  'weiterleiten',
  'durchstellen',
  'telefonieren',
  'schreiben',
  // en
  'talk',
  'speak',
  'chat with',
  'connect',
  'transfer',
  'put me through',
  // fr
  'parler',
  'discuter',
  'joindre',
  'contacter',
  // it
  'parlare',
  'passarmi',
  'mettermi in contatto',
  'contattare',
];

/** Verbs of wanting (with a strong word only). */
const WANT = [
  'mochte',
  'moechte',
  'will',
  'hatte gern',
  'brauche',
  'want',
  'need',
  'would like',
  "i'd like",
  'get me',
  'veux',
  'voudrais',
  'besoin',
  'voglio',
  'vorrei',
  'ho bisogno',
];

/** Lowercase, accents off, apostrophes unified, punctuation to spaces. */
function normalise(text: string): string {
  return ` ${text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[’`]/g, "'")
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()} `;
}

const has = (text: string, words: string[]) =>
  words.some((word) => text.includes(` ${word} `) || text.includes(` ${word}`.concat("'")));

/** True when the message asks to talk to a person. */
export function asksForPerson(message: string): boolean {
  const text = normalise(message);
  if (text.trim().length === 0 || text.length > 400) return false;
  const strong = has(text, STRONG);
  const weak = has(text, WEAK);
  if (!strong && !weak) return false;
  // Verbs match at a word start ("sprechen", "talk" in "talking", "connect" in "connecting").
  const verb = (words: string[]) => words.some((word) => text.includes(` ${word}`));
  if (verb(TALK)) return true;
  if (strong && verb(WANT)) return true;
  const words = text.trim().split(' ').length;
  return strong && words <= 4;
}

const CONNECTING: Record<Language, { formal: string; informal: string }> = {
  de: {
    formal:
      'Gerne verbinde ich Sie mit einer Mitarbeiterin oder einem Mitarbeiter. Bitte haben Sie einen Moment Geduld.',
    informal:
      'Gerne verbinde ich dich mit einer Mitarbeiterin oder einem Mitarbeiter. Bitte hab einen Moment Geduld.',
  },
  en: {
    formal: 'I will gladly connect you with a member of our team. Please bear with us for a moment.',
    informal: "Sure, I'll connect you with someone from our team. Please hang on a moment.",
  },
  fr: {
    formal:
      'Je vous mets volontiers en relation avec un membre de notre équipe. Merci de patienter un instant.',
    informal: "Je te mets en relation avec quelqu'un de notre équipe. Patiente un instant, s'il te plaît.",
  },
  it: {
    formal: 'La metto volentieri in contatto con un membro del nostro team. Attenda un momento, per favore.',
    informal: 'Ti metto in contatto con qualcuno del nostro team. Aspetta un momento, per favore.',
  },
};

/** The bot's reply when it hands over because the customer asked for a person. */
export function connectingReply(message: string, formal: boolean): string {
  return CONNECTING[detectLanguage(message)][formal ? 'formal' : 'informal'];
}
