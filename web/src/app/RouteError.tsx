import { Alert, Button, Center, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Shown instead of a blank page when a page fails to render. */
export function RouteError() {
  const { t } = useTranslation();
  return (
    <Center mih="60vh" p="md" component="main">
      <Alert color="red" title={t('errors.title')} role="alert" maw={480}>
        <Stack gap="sm" align="flex-start">
          <Text size="sm">{t('errors.page')}</Text>
          <Button size="xs" onClick={() => window.location.assign('/')}>
            {t('errors.home')}
          </Button>
        </Stack>
      </Alert>
    </Center>
  );
}
