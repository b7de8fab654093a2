import { PasswordInput } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { passwordProblemKey } from './team-rules';

/**
 * Form validators of a new password in `field` and its repetition in `repeat`: the password
 * rules, then the same twice.
 */
export function newPasswordValidation<F extends string>(field: F, t: (key: string) => string) {
  return {
    [field]: (value: string) => {
      const key = passwordProblemKey(value);
      return key ? t(key) : null;
    },
    repeat: (value: string, values: Record<F, string>) =>
      value === values[field] ? null : t('team.password.mismatch'),
  } as Record<F | 'repeat', (value: string, values: Record<F, string>) => string | null>;
}

/** A new password with its rules, and the same again. */
export function NewPasswordFields({
  label,
  repeatLabel,
  input,
  repeatInput,
}: {
  label: string;
  repeatLabel: string;
  input: GetInputPropsReturnType;
  repeatInput: GetInputPropsReturnType;
}) {
  const { t } = useTranslation();
  return (
    <>
      <PasswordInput
        label={label}
        description={t('team.password.rules')}
        autoComplete="new-password"
        required
        {...input}
      />
      <PasswordInput label={repeatLabel} autoComplete="new-password" required {...repeatInput} />
    </>
  );
}
