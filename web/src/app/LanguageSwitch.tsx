import { Button } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, setLanguage } from '../i18n';

/** German or English, remembered in the browser; on the sign-in page and in the shell. */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  return (
    <Button.Group aria-label={t('common.language')}>
      {LANGUAGES.map((language) => (
        <Button
          key={language}
          size="compact-xs"
          variant={i18n.language === language ? 'filled' : 'default'}
          aria-pressed={i18n.language === language}
          onClick={() => setLanguage(language)}
        >
          {language.toUpperCase()}
        </Button>
      ))}
    </Button.Group>
  );
}
