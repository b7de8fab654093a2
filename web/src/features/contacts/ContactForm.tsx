import { Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions';
import { ErrorAlert } from '../../components/states';
import type { ContactBody } from './queries';

export interface ContactFormValues {
  name: string;
  email: string;
  phone: string;
}

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

/** Create or edit a contact: name, e-mail, phone (stored in E.164 by the service). */
export function ContactForm({
  initial,
  onSubmit,
  pending,
  error,
}: {
  initial: ContactFormValues;
  onSubmit: (values: ContactBody) => void;
  pending: boolean;
  error: unknown;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState(initial);
  const set = (key: keyof ContactFormValues) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setValues({ ...values, [key]: e.currentTarget.value });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit({ name: orNull(values.name), email: orNull(values.email), phone: orNull(values.phone) });
      }}
    >
      <Stack>
        <TextInput label={t('contacts.name')} value={values.name} onChange={set('name')} />
        <TextInput label={t('contacts.email')} type="email" value={values.email} onChange={set('email')} />
        <TextInput
          label={t('contacts.phone')}
          description={t('contacts.phoneHint')}
          value={values.phone}
          onChange={set('phone')}
        />
        {error ? <ErrorAlert error={error} /> : null}
        <FormActions pending={pending} />
      </Stack>
    </form>
  );
}
