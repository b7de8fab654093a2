import { Button, CopyButton, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The buttons under a value shown once: copy it, then say it is kept (the value goes away). */
export function CopyAndDone({
  value,
  doneLabel,
  onDone,
}: {
  value: string;
  doneLabel: string;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Group>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button size="xs" onClick={copy} color={copied ? 'teal' : 'blue'}>
            {copied ? t('secret.copied') : t('secret.copy')}
          </Button>
        )}
      </CopyButton>
      <Button size="xs" variant="default" onClick={onDone}>
        {doneLabel}
      </Button>
    </Group>
  );
}
