import { Button, CopyButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A small button that copies a value and says so for a moment. */
export function CopyTextButton({ value }: { value: string }) {
  const { t } = useTranslation();
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button size="compact-xs" variant="light" color={copied ? 'teal' : 'blue'} onClick={copy}>
          {copied ? t('secret.copied') : t('secret.copy')}
        </Button>
      )}
    </CopyButton>
  );
}
