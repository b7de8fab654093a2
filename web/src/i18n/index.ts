import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['de', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
const STORAGE_KEY = 'parley.lang';

/** Each language is a chunk of its own: a page loads only the one it shows. */
const BUNDLES: Record<Language, () => Promise<{ default: Record<string, unknown> }>> = {
  de: () => import('./de.json'),
  en: () => import('./en.json'),
};

function initialLanguage(): Language {
  const stored = globalThis.localStorage?.getItem(STORAGE_KEY);
  return stored === 'en' || stored === 'de' ? stored : 'de';
}

async function loadLanguage(language: Language): Promise<void> {
  if (i18n.hasResourceBundle(language, 'translation')) return;
  const bundle = await BUNDLES[language]();
  i18n.addResourceBundle(language, 'translation', bundle.default);
}

void i18n.use(initReactI18next).init({
  resources: {},
  partialBundledLanguages: true,
  lng: initialLanguage(),
  fallbackLng: false,
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
});

/** Settles when the texts of the initial language are there; the app renders after it. */
export const i18nReady: Promise<void> = loadLanguage(initialLanguage());

export function setLanguage(language: Language): void {
  globalThis.localStorage?.setItem(STORAGE_KEY, language);
  document.documentElement.lang = language;
  void loadLanguage(language).then(() => i18n.changeLanguage(language));
}

if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;

export default i18n;
