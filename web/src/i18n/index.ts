import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import startDe from './start.de.json';
import startEn from './start.en.json';

export const LANGUAGES = ['de', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
const STORAGE_KEY = 'parley.lang';

/*
 * Texts in two parts. The sign-in page's few texts (start.*.json) are part of the entry, so
 * sign-in needs no further request; the rest of a language (de.json, en.json) is a chunk of its
 * own, loaded with the first page behind sign-in (loadTexts) or on a language switch.
 */
const START: Record<Language, Record<string, unknown>> = { de: startDe, en: startEn };
const BUNDLES: Record<Language, () => Promise<{ default: Record<string, unknown> }>> = {
  de: () => import('./de.json'),
  en: () => import('./en.json'),
};
const loaded = new Set<Language>();

function initialLanguage(): Language {
  const stored = globalThis.localStorage?.getItem(STORAGE_KEY);
  return stored === 'en' || stored === 'de' ? stored : 'de';
}

async function loadLanguage(language: Language): Promise<void> {
  if (loaded.has(language)) return;
  const bundle = await BUNDLES[language]();
  i18n.addResourceBundle(language, 'translation', bundle.default, true, false);
  loaded.add(language);
}

void i18n.use(initReactI18next).init({
  resources: Object.fromEntries(LANGUAGES.map((language) => [language, { translation: START[language] }])),
  partialBundledLanguages: true,
  lng: initialLanguage(),
  fallbackLng: false,
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
  // Components show the texts of a part loaded after them.
  react: { bindI18nStore: 'added' },
});

/** Settles when all texts of the current language are there (every page but sign-in). */
export function loadTexts(): Promise<void> {
  return loadLanguage(i18n.language === 'en' ? 'en' : 'de');
}

export function setLanguage(language: Language): void {
  globalThis.localStorage?.setItem(STORAGE_KEY, language);
  document.documentElement.lang = language;
  // Away from sign-in, the other language's texts come first; on sign-in, its start texts suffice.
  const ready = loaded.size > 0 ? loadLanguage(language) : Promise.resolve();
  void ready.then(() => i18n.changeLanguage(language));
}

if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;

export default i18n;
