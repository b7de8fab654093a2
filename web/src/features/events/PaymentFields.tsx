import { Group, NumberInput, Select, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PAYMENT_MODELS, hasPrice, needsPrice, type PaymentValues } from './event-form';

/** Payment model first; price, deposit and link only where the model has them. */
export function PaymentFields({
  form,
  locked,
}: {
  form: { values: PaymentValues; getInputProps: (path: keyof PaymentValues) => object };
  locked?: string;
}) {
  const { t } = useTranslation();
  const model = form.values.payment_model;
  return (
    <Stack gap="sm">
      <Select
        label={t('events.paymentModel')}
        description={locked}
        disabled={Boolean(locked)}
        allowDeselect={false}
        data={PAYMENT_MODELS.map((m) => ({ value: m, label: t(`events.payment.${m}`) }))}
        {...form.getInputProps('payment_model')}
      />
      {hasPrice(model) && (
        <Group grow align="flex-start">
          <NumberInput
            label={t('events.price')}
            required={needsPrice(model)}
            disabled={Boolean(locked)}
            min={0}
            decimalScale={2}
            {...form.getInputProps('price')}
          />
          <TextInput
            label={t('events.currency')}
            maxLength={3}
            disabled={Boolean(locked)}
            {...form.getInputProps('currency')}
          />
        </Group>
      )}
      {model === 'deposit' && (
        <NumberInput
          label={t('events.depositAmount')}
          required
          disabled={Boolean(locked)}
          min={0}
          decimalScale={2}
          {...form.getInputProps('deposit_amount')}
        />
      )}
      {model === 'external_link' && (
        <TextInput
          label={t('events.externalUrl')}
          required
          disabled={Boolean(locked)}
          placeholder="https://"
          {...form.getInputProps('external_payment_url')}
        />
      )}
    </Stack>
  );
}
