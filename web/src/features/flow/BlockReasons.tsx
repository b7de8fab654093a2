import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { blockReasons, type BlockCheck, type Message } from './reasons';

/** The pre-flight reasons of one block and their fixes, in the user's language. */
export function BlockReasons({ check }: { check: BlockCheck }) {
  const { t } = useTranslation();
  const { reasons, fixes } = blockReasons(check);
  const text = (m: Message) => {
    const params = { ...m.params };
    if (m.key === 'flow.reasons.routedBy') {
      const mode = String(params.mode);
      params.mode = mode === 'option_actions' ? t('flow.reasons.byActions') : t(`flow.triggers.${mode}`);
    }
    return t(m.key, params);
  };
  return (
    <>
      {reasons.map(text).join(' ')}
      {fixes.length > 0 && (
        <Text size="xs" c="dimmed">
          {fixes.map(text).join(' ')}
        </Text>
      )}
    </>
  );
}
