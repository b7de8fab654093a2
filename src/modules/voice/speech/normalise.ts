/**
 * Text made for speech: a bot's reply as it is read aloud on the phone. Markdown, links and
 * tags go; prices, dates, times and phone numbers become words in the caller's language
 * ("12,50 €" → "zwölf Euro fünfzig", "14:30" → "vierzehn Uhr dreißig", "+49 30 12" → digits
 * one by one); other numbers are spoken as numbers. Pure.
 */
import { cardinal, cardinalBeforeNoun, dayOfMonth, phoneDigits, type VoiceLanguage } from './numbers.js';

const MONTHS: Record<VoiceLanguage, readonly string[]> = {
  de: [
    'Januar',
    'Februar',
    'März',
    'April',
    'Mai',
    'Juni',
    'Juli',
    'August',
    'September',
    'Oktober',
    'November',
    'Dezember',
  ],
  en: [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ],
  fr: [
    'janvier',
    'février',
    'mars',
    'avril',
    'mai',
    'juin',
    'juillet',
    'août',
    'septembre',
    'octobre',
    'novembre',
    'décembre',
  ],
  it: [
    'gennaio',
    'febbraio',
    'marzo',
    'aprile',
    'maggio',
    'giugno',
    'luglio',
    'agosto',
    'settembre',
    'ottobre',
    'novembre',
    'dicembre',
  ],
};

const CURRENCIES: Record<string, Record<VoiceLanguage, [one: string, many: string]>> = {
  EUR: { de: ['Euro', 'Euro'], en: ['euro', 'euros'], fr: ['euro', 'euros'], it: ['euro', 'euro'] },
  CHF: {
    de: ['Franken', 'Franken'],
    en: ['Swiss franc', 'Swiss francs'],
    fr: ['franc', 'francs'],
    it: ['franco', 'franchi'],
  },
  USD: {
    de: ['Dollar', 'Dollar'],
    en: ['dollar', 'dollars'],
    fr: ['dollar', 'dollars'],
    it: ['dollaro', 'dollari'],
  },
  GBP: {
    de: ['Pfund', 'Pfund'],
    en: ['pound', 'pounds'],
    fr: ['livre', 'livres'],
    it: ['sterlina', 'sterline'],
  },
};

const SYMBOLS: Record<string, string> = {
  '€': 'EUR',
  $: 'USD',
  '£': 'GBP',
  CHF: 'CHF',
  EUR: 'EUR',
  Fr: 'CHF',
};

const AND: Record<VoiceLanguage, string> = { de: 'und', en: 'and', fr: 'et', it: 'e' };
const PERCENT: Record<VoiceLanguage, string> = {
  de: 'Prozent',
  en: 'percent',
  fr: 'pour cent',
  it: 'per cento',
};

/** "12,50" or "12.50" or "1.250,00" as euros and cents; null when it is no amount. */
function amountOf(written: string): { units: number; cents: number } | null {
  const match = /^(\d{1,3}(?:[.' ]\d{3})+|\d+)(?:[.,](\d{2}|[-–]{1,2}))?$/.exec(written);
  if (!match) return null;
  const units = Number(match[1]!.replace(/[.' ]/g, ''));
  const cents = match[2] && /^\d{2}$/.test(match[2]) ? Number(match[2]) : 0;
  return { units, cents };
}

/** An amount in words: "zwölf Euro fünfzig", "one euro", "dodici euro e cinquanta". */
export function spokenPrice(lang: VoiceLanguage, units: number, cents: number, currency: string): string {
  const names = CURRENCIES[currency] ?? CURRENCIES.EUR!;
  const [one, many] = names[lang];
  const unitWords = `${units === 1 ? cardinalBeforeNoun(lang, 1, lang === 'it' && currency === 'GBP') : cardinal(lang, units)} ${units === 1 ? one : many}`;
  if (cents === 0) return unitWords;
  const centWords = cardinal(lang, cents);
  return lang === 'it' ? `${unitWords} e ${centWords}` : `${unitWords} ${centWords}`;
}

/** A clock time in words: "vierzehn Uhr dreißig", "two thirty p.m.", "quatorze heures trente". */
export function spokenTime(lang: VoiceLanguage, hours: number, minutes: number): string {
  switch (lang) {
    case 'de': {
      const h = `${cardinalBeforeNoun('de', hours)} Uhr`;
      return minutes === 0 ? h : `${h} ${cardinal('de', minutes)}`;
    }
    case 'en': {
      const suffix = hours < 12 ? 'a.m.' : 'p.m.';
      const twelve = hours % 12 === 0 ? 12 : hours % 12;
      if (hours === 12 && minutes === 0) return 'noon';
      if (hours === 0 && minutes === 0) return 'midnight';
      const m =
        minutes === 0 ? '' : minutes < 10 ? ` oh ${cardinal('en', minutes)}` : ` ${cardinal('en', minutes)}`;
      return `${cardinal('en', twelve)}${m} ${suffix}`;
    }
    case 'fr': {
      const h = `${cardinalBeforeNoun('fr', hours, true)} ${hours === 1 || hours === 0 ? 'heure' : 'heures'}`;
      return minutes === 0 ? h : `${h} ${cardinal('fr', minutes)}`;
    }
    case 'it': {
      const h = hours === 1 ? "l'una" : cardinal('it', hours);
      return minutes === 0 ? h : `${h} e ${cardinal('it', minutes)}`;
    }
  }
}

/** A date in words; `year` is spoken when given. German uses the dative after a preposition. */
export function spokenDate(
  lang: VoiceLanguage,
  day: number,
  month: number,
  year: number | null,
  germanEnding: 'n' | 'r' = 'n',
): string {
  const monthName = MONTHS[lang][month - 1]!;
  const yearWords = year === null ? '' : ` ${cardinal(lang, year)}`;
  if (lang === 'en') return `${monthName} ${dayOfMonth('en', day)}${yearWords}`;
  return `${dayOfMonth(lang, day, germanEnding)} ${monthName}${yearWords}`;
}

function validDate(day: number, month: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** Markdown, links, tags and decoration removed; line breaks as sentence pauses. */
export function plainText(text: string): string {
  return (
    text
      // Fenced code is not read aloud.
      .replace(/```[\s\S]*?```/g, ' ')
      // Images go; links keep their text.
      .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
      .replace(/\[([^\]]+)\]\((?:[^)]*)\)/g, '$1')
      // Tags of the engine (blocks, bookings) and any left in the text.
      .replace(/\[\s*(?:BUTTONS|LIST|BOOK|WAITLIST)\s*:[^\]]*\]/gi, ' ')
      // Bare addresses.
      .replace(/<?\b(?:https?:\/\/|www\.)[^\s<>]+>?/gi, ' ')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/^\s{0,3}#{1,6}\s+/gm, '')
      .replace(/^\s{0,3}>\s?/gm, '')
      .replace(/^\s*(?:[-*+•]|\d+[.)])\s+/gm, '')
      .replace(/^\s*[-*_]{3,}\s*$/gm, ' ')
      .replace(/(\*\*|__)(.+?)\1/g, '$2')
      .replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
      .replace(/\|/g, ' ')
      .replace(/\p{Extended_Pictographic}\uFE0F?/gu, '')
  );
}

/** Sentences from lines: a line without a closing mark gets a full stop, so the voice pauses. */
function joinLines(text: string): string {
  return text
    .split(/\n+/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => (/[.!?:;,…]$/.test(line) ? line : `${line}.`))
    .join(' ')
    .replace(/\s{2,}/g, ' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .replace(/([.,;:!?])\1+/g, '$1')
    .replace(/^[.,;:]\s*/, '')
    .trim();
}

const PRICE_BEFORE =
  /(€|\$|£|\bCHF|\bEUR)\s?(\d{1,3}(?:[.' ]\d{3})+(?:[.,](?:\d{2}|[-–]{1,2}))?|\d+(?:[.,](?:\d{2}|[-–]{1,2}))?)/g;
const PRICE_AFTER =
  /(\d{1,3}(?:[.' ]\d{3})+(?:[.,](?:\d{2}|[-–]{1,2}))?|\d+(?:[.,](?:\d{2}|[-–]{1,2}))?)\s?(€|\$|£|CHF\b|EUR\b|Euro\b|euros?\b|Fr\.)/g;
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/g;
const DOTTED_DATE = /(\b(?:am|den|vom|zum|bis|ab)\s+)?\b(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2}\b)?/gi;
const SLASH_DATE = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g;
/** "14:30", "14:30 Uhr", "14.30 Uhr", "14h30", "14h", "9 Uhr". */
const TIMES = [
  /\b([01]?\d|2[0-3]):([0-5]\d)(?:\s?Uhr\b)?(?!\d)/g,
  /\b([01]?\d|2[0-3])\.([0-5]\d)\s?Uhr\b/g,
  /\b([01]?\d|2[0-3])h([0-5]\d)?\b/g,
  /\b([01]?\d|2[0-3])\s?Uhr\b()/g,
];
const PHONE = /(?<![\w,.])\+?\d[\d \-/()]{5,}\d(?![\w])/g;

function yearOf(written: string | undefined): number | null {
  if (!written) return null;
  return written.length === 2 ? 2000 + Number(written) : Number(written);
}

/**
 * The reply as it is read aloud, in `lang`. Order matters: addresses and markdown first, then
 * prices (which contain decimals), dates (which contain dots), times, phone numbers, and the
 * remaining numbers.
 */
export function speakable(text: string, lang: VoiceLanguage): string {
  return joinLines(convert(plainText(text), lang));
}

/**
 * A piece of a streamed reply as it is read aloud: the same conversions, markup characters
 * left over from a split pair removed, spaces kept at its edges so pieces join up.
 */
export function speakFragment(text: string, lang: VoiceLanguage): string {
  return convert(plainText(text), lang)
    .replace(/[*_#`]+/g, '')
    .replace(/\s*\n+\s*/g, ' ')
    .replace(/ {2,}/g, ' ');
}

function convert(text: string, lang: VoiceLanguage): string {
  let out = text;
  out = out.replace(PRICE_BEFORE, (whole, symbol: string, amount: string) => {
    const value = amountOf(amount);
    return value ? spokenPrice(lang, value.units, value.cents, SYMBOLS[symbol.trim()] ?? 'EUR') : whole;
  });
  out = out.replace(PRICE_AFTER, (whole, amount: string, symbol: string) => {
    const value = amountOf(amount);
    const code = /^euro/i.test(symbol) ? 'EUR' : (SYMBOLS[symbol] ?? 'EUR');
    return value ? spokenPrice(lang, value.units, value.cents, code) : whole;
  });
  out = out.replace(ISO_DATE, (whole, y: string, m: string, d: string) =>
    validDate(Number(d), Number(m)) ? spokenDate(lang, Number(d), Number(m), Number(y)) : whole,
  );
  out = out.replace(SLASH_DATE, (whole, d: string, m: string, y: string) =>
    validDate(Number(d), Number(m)) ? spokenDate(lang, Number(d), Number(m), Number(y)) : whole,
  );
  out = out.replace(
    DOTTED_DATE,
    (whole, preposition: string | undefined, d: string, m: string, y: string | undefined) => {
      if (!validDate(Number(d), Number(m))) return whole;
      // "Am 24.12." → "Am vierundzwanzigsten Dezember"; alone: "vierundzwanzigster Dezember".
      const ending = preposition ? 'n' : 'r';
      return `${preposition ?? ''}${spokenDate(lang, Number(d), Number(m), yearOf(y), ending)}`;
    },
  );
  for (const time of TIMES) {
    out = out.replace(time, (_whole, h: string, m: string | undefined) =>
      spokenTime(lang, Number(h), m ? Number(m) : 0),
    );
  }
  out = out.replace(PHONE, (written: string) => {
    const digits = written.replace(/\D/g, '');
    return digits.length >= 7 ? phoneDigits(lang, written) : written;
  });
  out = out.replace(/(\d+)\s?%/g, (_w, n: string) => `${cardinal(lang, n)} ${PERCENT[lang]}`);
  out = out.replace(/\b\d{1,3}(?:[.' ]\d{3})+\b(?![.,]\d)|\b\d+(?:[.,]\d+)?\b/g, (written) => {
    const normal = written.replace(/[' ]/g, '');
    // "1.250" (thousands) and "2,5"/"2.5" (decimals): decimals have 1–2 digits after the mark
    // in de/fr/it with a comma, in en with a point.
    const thousands = /^\d{1,3}(?:\.\d{3})+$/.test(normal) && lang !== 'en';
    const value = thousands ? normal.replace(/\./g, '') : normal.replace(',', '.');
    if (!/^\d+(\.\d+)?$/.test(value) || value.length > 15) return written;
    return cardinal(lang, value);
  });
  return out.replace(/\s&\s/g, ` ${AND[lang]} `).replace(/\s[–—]\s/g, ', ');
}
