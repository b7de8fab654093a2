/**
 * Numbers in words for the four spoken languages (n2words), with the few forms speech needs
 * beyond the plain cardinal: "ein Uhr", "une heure", ordinals of days, digits one by one.
 * Pure.
 */
import * as de from 'n2words/de-DE';
import * as en from 'n2words/en-US';
import * as fr from 'n2words/fr-FR';
import * as it from 'n2words/it-IT';

/** The languages a voice bot speaks. */
export const VOICE_LANGUAGES = ['de', 'en', 'fr', 'it'] as const;
export type VoiceLanguage = (typeof VOICE_LANGUAGES)[number];

const WORDS = { de, en, fr, it } as const;

/** A language tag as Twilio sends it (`de-DE`, `en-US`, `fr`) as one of ours; German otherwise. */
export function voiceLanguageOf(tag: string | null | undefined): VoiceLanguage {
  const base = (tag ?? '').slice(0, 2).toLowerCase();
  return (VOICE_LANGUAGES as readonly string[]).includes(base) ? (base as VoiceLanguage) : 'de';
}

/** A whole number (or a decimal) in words. */
export function cardinal(lang: VoiceLanguage, value: number | string): string {
  const words = WORDS[lang].toCardinal(value);
  // n2words writes the German decimal separator in lower case; a noun is capitalised.
  return lang === 'de' ? words.replace(/\bkomma\b/g, 'Komma') : words;
}

/** The number as it stands before a noun in the feminine/neuter ("ein Uhr", "une heure"). */
export function cardinalBeforeNoun(lang: VoiceLanguage, value: number, feminine = false): string {
  if (value === 1) {
    if (lang === 'de') return 'ein';
    if (lang === 'fr') return feminine ? 'une' : 'un';
    if (lang === 'it') return feminine ? 'una' : 'un';
  }
  // "einundzwanzig Uhr" stays; French "vingt et une heures".
  if (lang === 'fr' && feminine && value % 10 === 1 && value !== 11) {
    return cardinal(lang, value).replace(/un$/, 'une');
  }
  return cardinal(lang, value);
}

/** The day of a date: "vierundzwanzigsten" after "am", "first", "premier"/"vingt-quatre", "primo"/"ventiquattro". */
export function dayOfMonth(lang: VoiceLanguage, day: number, germanEnding: 'n' | 'r' = 'n'): string {
  switch (lang) {
    case 'de':
      return WORDS.de.toOrdinal(day) + germanEnding;
    case 'en':
      return WORDS.en.toOrdinal(day);
    case 'fr':
      return day === 1 ? 'premier' : cardinal('fr', day);
    case 'it':
      return day === 1 ? 'primo' : cardinal('it', day);
  }
}

const DIGITS: Record<VoiceLanguage, readonly string[]> = {
  de: ['null', 'eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun'],
  en: ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'],
  fr: ['zéro', 'un', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'neuf'],
  it: ['zero', 'uno', 'due', 'tre', 'quattro', 'cinque', 'sei', 'sette', 'otto', 'nove'],
};

const PLUS: Record<VoiceLanguage, string> = { de: 'plus', en: 'plus', fr: 'plus', it: 'più' };

/**
 * A phone number digit by digit, its groups (as written) separated by commas so the voice
 * pauses between them: "+49 30 123" → "plus vier neun, drei null, eins zwei drei".
 */
export function phoneDigits(lang: VoiceLanguage, written: string): string {
  const groups = written
    .trim()
    .split(/[\s\-/().]+/)
    .filter((g) => g !== '');
  const spoken = groups.map((group) => {
    const plus = group.startsWith('+') ? `${PLUS[lang]} ` : '';
    const digits = [...group.replace(/\D/g, '')].map((d) => DIGITS[lang][Number(d)]);
    return plus + digits.join(' ');
  });
  return spoken.join(', ');
}

/** The word for one digit (for "drücken Sie eins"). */
export function digitWord(lang: VoiceLanguage, digit: number): string {
  return DIGITS[lang][digit] ?? String(digit);
}
